import { screen, waitFor } from '@testing-library/dom';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderPublicPage } from '../../test/render-public-page';
import { errorResponse, jsonResponse, PUBLIC_FEATURES, stubApi } from '../../test/render-route';

afterEach(() => vi.useRealTimers());

describe('email-actions/action', () => {
  it.each([
    '/email-actions/action',
    '/email-actions/action?type=quarantine',
    '/email-actions/action?id=abc',
    '/email-actions/action?type=&id=abc',
  ])('says the message cannot be found when type or id is missing (%s)', async (path) => {
    const api = stubApi();
    renderPublicPage(path);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not find email message to restore.');
    expect(api.calls.some((call) => call.method === 'POST')).toBe(false);
  });

  it("shows 'Connection error' when the public settings cannot be loaded, after two more tries", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = stubApi({
      'GET /api/v1/generic/ui_features_public': () => errorResponse(500, 'internal_error', 'boom'),
    });
    renderPublicPage('/email-actions/action?type=a&id=b');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('Connection error');
    expect(api.calls.filter((call) => call.url.pathname.endsWith('ui_features_public'))).toHaveLength(3);
  });

  it('tries the public settings again after a failure, and goes on when they come', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let failures = 1;
    stubApi({
      'GET /api/v1/generic/ui_features_public': () =>
        failures-- > 0
          ? errorResponse(503, 'service_unavailable', 'busy')
          : jsonResponse(200, PUBLIC_FEATURES),
      'POST /api/v1/a/identification_needed': () => jsonResponse(200, { status: true }),
    });
    renderPublicPage('/email-actions/action?type=a&id=b');
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    expect(await screen.findByRole('heading', { name: 'User Verification' })).toBeInTheDocument();
  });

  it('shows the progress text and asks whether identification is needed, passing the page parameters on', async () => {
    // The answer waits until the progress text has been seen.
    let answer = () => {};
    const api = stubApi({
      'POST /api/v1/quarantine/identification_needed': () =>
        new Promise((resolve) => {
          answer = () => resolve(jsonResponse(200, { status: true }));
        }),
    });
    renderPublicPage('/email-actions/action?type=quarantine&id=opaque-1&lang=de');
    expect(await screen.findByText('Processing your email, this may take a while...')).toBeInTheDocument();
    await waitFor(() => expect(api.calls.some((call) => call.method === 'POST')).toBe(true));
    answer();
    expect(await screen.findByRole('heading', { name: 'User Verification' })).toBeInTheDocument();
    const post = api.calls.find((call) => call.method === 'POST');
    expect(post?.url.pathname).toBe('/api/v1/quarantine/identification_needed');
    expect(Object.fromEntries(post?.url.searchParams ?? [])).toEqual({ id: 'opaque-1', lang: 'de' });
    expect(post?.body).toEqual({ action_name: 'email_action' });
    expect(post?.headers.get('X-Requested-With')).toBe('moat');
    expect(document.title).toBe('Mail action - Moat');
  });

  it('says the identification cannot be checked on a 404', async () => {
    stubApi();
    renderPublicPage('/email-actions/action?type=a&id=b');
    expect(await screen.findByRole('alert')).toHaveTextContent("Error: Can't check the identification");
  });

  it('shows the unknown-error text on any other failure, after two more tries', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = stubApi({
      'POST /api/v1/a/identification_needed': () => errorResponse(500, 'internal_error', 'boom'),
    });
    renderPublicPage('/email-actions/action?type=a&id=b');
    const tries = () => api.calls.filter((call) => call.url.pathname.endsWith('identification_needed'));
    await waitFor(() => expect(tries()).toHaveLength(1));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    expect(tries()).toHaveLength(3);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error: Unknown error occurred. Please contact support.',
    );
  });

  it('shows the unparsable-answer text when the answer has no status', async () => {
    stubApi({ 'POST /api/v1/a/identification_needed': () => jsonResponse(200, { nothing: 1 }) });
    renderPublicPage('/email-actions/action?type=a&id=b');
    expect(await screen.findByRole('alert')).toHaveTextContent('Error processing e-mail');
  });

  it('fades the page loader out once the settings arrived', async () => {
    stubApi();
    const { container } = renderPublicPage('/email-actions/action?type=a&id=b');
    await screen.findByRole('heading', { name: 'Mail action' });
    await waitFor(() => expect(container.querySelector('.page-loader[data-done]')).not.toBeNull());
    await waitFor(() => expect(container.querySelector('.page-loader')).toBeNull(), { timeout: 1000 });
  });

  it('puts the checkpoint theme class on the body', async () => {
    stubApi({
      'GET /api/v1/generic/ui_features_public': () =>
        jsonResponse(200, { ...PUBLIC_FEATURES, checkpointTheme: true }),
    });
    renderPublicPage('/email-actions/action?type=a&id=b');
    await waitFor(() => expect(document.body).toHaveClass('checkpoint-theme'));
  });

  it('runs the action after a verified code and thanks the recipient', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      'POST /api/v1/quarantine/identification_needed': () => jsonResponse(200, { status: true }),
      'POST /api/v1/quarantine/verify_recipient': () =>
        jsonResponse(200, { status: 'ok', wait_time: 0, message: 'sent' }),
      'GET /api/v1/quarantine/user_response': () =>
        jsonResponse(200, { success: true, primary_text: '', secondary_text: '' }),
    });
    renderPublicPage('/email-actions/action?type=quarantine&id=opaque-1');
    expect(await screen.findByRole('heading', { name: 'User Verification' })).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /Enter your email address:/ }), 'ana@acme.test');
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    expect(await screen.findByRole('button', { name: 'Resend code' })).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: /Enter the verification code/ }), '123456');
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(await screen.findByRole('heading', { name: 'Thank You' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Requested action performed successfully');
    const action = api.calls.find((call) => call.url.pathname.endsWith('user_response'));
    expect(Object.fromEntries(action?.url.searchParams ?? [])).toEqual({
      id: 'opaque-1',
      email: 'ana@acme.test',
      code: '123456',
    });
  });

  it('says the message to process cannot be found when the action answers 404', async () => {
    stubApi({ 'POST /api/v1/quarantine/identification_needed': () => jsonResponse(200, { status: false }) });
    renderPublicPage('/email-actions/action?type=quarantine&id=opaque-1');
    expect(await screen.findByRole('alert')).toHaveTextContent("Error: Can't find message to process");
  });

  it('shows the custom logo of the public settings', async () => {
    stubApi();
    renderPublicPage('/email-actions/action?type=a&id=b');
    expect(await screen.findByRole('img', { name: 'Company logo' })).toHaveAttribute(
      'src',
      '/api/v1/custom_icon_public',
    );
  });
});

describe('email-actions/restore-email and restore-attachment', () => {
  it('restore-email says the email cannot be found without type and msg', async () => {
    stubApi();
    renderPublicPage('/email-actions/restore-email?type=a');
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not find email.');
  });

  it('restore-attachment is a titled placeholder', async () => {
    stubApi();
    renderPublicPage('/email-actions/restore-attachment');
    expect(await screen.findByRole('heading', { name: 'Restore attachment' })).toBeInTheDocument();
  });
});
