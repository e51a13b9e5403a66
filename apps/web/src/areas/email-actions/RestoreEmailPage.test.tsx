import { RESTORE_POLL_INTERVAL_MS } from '@moat/contracts/constants';
import { screen, waitFor } from '@testing-library/dom';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeRestoreApi, RIGHT_CODE, WRONG_CODE } from '../../test/public-restore-api';
import { renderPublicPage } from '../../test/render-public-page';
import { errorResponse, jsonResponse, type RecordedCall, stubApi } from '../../test/render-route';

afterEach(() => vi.useRealTimers());

const PAGE = '/email-actions/restore-email?type=office365_emails&msg=msg-1';
const RECIPIENT = 'ana@acme.test';
const paths = (calls: RecordedCall[]) => calls.map((call) => `${call.method} ${call.url.pathname}`);
const query = (call: RecordedCall | undefined) => Object.fromEntries(call?.url.searchParams ?? []);

async function verifyEmail(user: ReturnType<typeof userEvent.setup>, email = RECIPIENT) {
  await user.type(await screen.findByRole('textbox', { name: /Enter your email address:/ }), email);
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  return screen.findByRole('textbox', { name: /Enter the verification code that was sent to you/ });
}

async function enterCode(user: ReturnType<typeof userEvent.setup>, code: string) {
  const field = screen.getByRole('textbox', { name: /Enter the verification code/ });
  await user.clear(field);
  await user.type(field, code);
  await user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('email-actions/restore-email: automatic mode', () => {
  it('checks the message exists, asks for identification, sends a code and restores with the right code', async () => {
    const user = userEvent.setup();
    const fake = fakeRestoreApi();
    const api = stubApi(fake.handlers);
    renderPublicPage(`${PAGE}&mode=automatic`);

    expect(await screen.findByRole('heading', { name: 'User Verification' })).toBeInTheDocument();
    expect(screen.getByText('An email with a verification code will be sent to this address.')).toBeVisible();
    expect(paths(api.calls).filter((p) => p.includes('office365_emails'))).toEqual([
      'GET /api/v1/office365_emails/msg-1/entity_exists',
      'POST /api/v1/office365_emails/identification_needed',
    ]);
    const identification = api.calls.find((call) => call.url.pathname.endsWith('identification_needed'));
    expect(query(identification)).toEqual({ msg: 'msg-1', mode: 'automatic' });
    expect(identification?.body).toEqual({ action_name: 'email_restore' });

    await verifyEmail(user);
    const verify = api.calls.find((call) => call.url.pathname.endsWith('verify_recipient'));
    expect(query(verify)).toEqual({ msg: 'msg-1', mode: 'automatic', email: RECIPIENT });
    expect(verify?.body).toEqual({ action_name: 'email_restore' });
    expect(screen.getByRole('status')).toHaveTextContent(
      `If ${RECIPIENT} is the address the message was sent to, a verification code is on its way.`,
    );

    await enterCode(user, RIGHT_CODE);
    expect(await screen.findByRole('heading', { name: 'Thank You' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('The email was restored to your mailbox.');
    const restore = api.calls.find((call) => call.url.pathname === '/api/v1/office365_emails/restore');
    expect(restore?.method).toBe('GET');
    expect(query(restore)).toMatchObject({
      msg: 'msg-1',
      mode: 'automatic',
      code: RIGHT_CODE,
      email: RECIPIENT,
    });
    expect(query(restore).rnd).toMatch(/\w+/);
  });

  it('restores with a POST (empty message) when no identification is needed, never with a GET', async () => {
    const fake = fakeRestoreApi({ identificationNeeded: false });
    const api = stubApi(fake.handlers);
    renderPublicPage(`${PAGE}&mode=automatic`);
    expect(await screen.findByText('The email was restored to your mailbox.')).toBeInTheDocument();
    const restores = api.calls.filter((call) => call.url.pathname === '/api/v1/office365_emails/restore');
    expect(restores.map((call) => call.method)).toEqual(['POST']);
    expect(restores[0]?.body).toEqual({ commentary: '' });
  });

  it('refuses an address that does not match the public pattern with "Email is not valid"', async () => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi().handlers);
    renderPublicPage(PAGE);
    const field = await screen.findByRole('textbox', { name: /Enter your email address:/ });
    expect(field).toHaveAttribute('type', 'email');
    expect(field).toBeRequired();
    await user.type(field, 'ana@acme');
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    expect(await screen.findByText('Email is not valid')).toBeInTheDocument();
    expect(field).toHaveFocus();
    expect(api.calls.some((call) => call.url.pathname.endsWith('verify_recipient'))).toBe(false);
  });

  it('shows the server message when verify_recipient refuses, and "Can\'t find email" on a 404', async () => {
    const user = userEvent.setup();
    const fake = fakeRestoreApi();
    let answer = errorResponse(400, 'bad_request', 'Email is not valid');
    stubApi({ ...fake.handlers, 'POST /api/v1/office365_emails/verify_recipient': () => answer });
    renderPublicPage(PAGE);
    await user.type(await screen.findByRole('textbox', { name: /Enter your email address:/ }), RECIPIENT);
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Email is not valid');
    answer = errorResponse(404, 'not_found', "Can't find message");
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent("Can't find email"));
    answer = errorResponse(500, 'internal_error', 'boom');
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent('Failed verifying email'));
  });

  it('says when a new code can be asked for when the server mails no more codes (429), on either form', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const fake = fakeRestoreApi({ waitTime: 1 });
    const limited = () =>
      errorResponse(
        429,
        'rate_limited',
        'Too many codes were asked for this address. You can ask for a new code in 42 minutes.',
      );
    let sent = 0;
    stubApi({
      ...fake.handlers,
      'POST /api/v1/office365_emails/verify_recipient': (call: RecordedCall) =>
        sent++ === 0 ? fake.handlers['POST /api/v1/office365_emails/verify_recipient']!(call) : limited(),
    });
    renderPublicPage(PAGE);
    await verifyEmail(user);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });
    await user.click(await screen.findByRole('button', { name: 'Resend code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('You can ask for a new code in 42 minutes.');
    // The code already sent still works in this browser: the code form stays.
    expect(screen.getByRole('textbox', { name: /Enter the verification code/ })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Use a different email address' }));
    await user.click(await screen.findByRole('button', { name: 'Send code' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('You can ask for a new code in 42 minutes.');
  });

  it('does nothing on an empty code', async () => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi().handlers);
    renderPublicPage(PAGE);
    const code = await verifyEmail(user);
    await user.click(screen.getByRole('button', { name: 'Verify' }));
    expect(code).toHaveFocus();
    expect(api.calls.some((call) => call.url.pathname.endsWith('/restore'))).toBe(false);
  });

  it('counts three wrong codes down, then shows the max-attempts state with the submit disabled', async () => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi().handlers);
    renderPublicPage(PAGE);
    await verifyEmail(user);

    await enterCode(user, WRONG_CODE);
    expect(await screen.findByText('The code is not valid. Attempts left: 2.')).toBeInTheDocument();
    await enterCode(user, WRONG_CODE);
    expect(await screen.findByText('The code is not valid. Attempts left: 1.')).toBeInTheDocument();
    await enterCode(user, WRONG_CODE);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'You have reached the maximum number of attempts.',
    );
    expect(screen.getByRole('button', { name: 'Verify' })).toBeDisabled();
    expect(screen.getByRole('heading', { name: 'User Verification' })).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: /Enter the verification code/ }), RIGHT_CODE);
    await user.keyboard('{Enter}');
    const restores = api.calls.filter((call) => call.url.pathname.endsWith('/restore'));
    expect(restores).toHaveLength(3);
  });

  it('hides "Resend code" behind a countdown until wait_time has passed, then sends a new code', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const api = stubApi(fakeRestoreApi({ waitTime: 30 }).handlers);
    renderPublicPage(PAGE);
    await verifyEmail(user);

    expect(screen.getByText('Resend code in 30 s')).toHaveAttribute('aria-disabled', 'true');
    expect(screen.queryByRole('button', { name: 'Resend code' })).not.toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(29_000);
    });
    expect(screen.queryByRole('button', { name: 'Resend code' })).not.toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(1_000);
    });

    await user.click(await screen.findByRole('button', { name: 'Resend code' }));
    await waitFor(() =>
      expect(api.calls.filter((call) => call.url.pathname.endsWith('verify_recipient'))).toHaveLength(2),
    );
    expect(
      await screen.findByText('A new code is on its way. The previous code no longer works.'),
    ).toBeVisible();
    expect(screen.getByText('Resend code in 30 s')).toBeInTheDocument();
  });

  it('redisplays the code form 1 s after a 404, at most 4 times', async () => {
    const user = userEvent.setup();
    const fake = fakeRestoreApi();
    const api = stubApi({
      ...fake.handlers,
      'GET /api/v1/office365_emails/restore': () => errorResponse(404, 'not_found', "Can't find message"),
    });
    renderPublicPage(PAGE);
    await verifyEmail(user);
    for (let round = 1; round <= 4; round++) {
      await enterCode(user, RIGHT_CODE);
      expect(await screen.findByRole('heading', { name: 'Email Restore' })).toBeInTheDocument();
      expect(screen.getByRole('alert')).toHaveTextContent("Can't find message");
      expect(
        await screen.findByRole('textbox', { name: /Enter the verification code/ }, { timeout: 2_000 }),
      ).toBeInTheDocument();
    }
    await enterCode(user, RIGHT_CODE);
    expect(await screen.findByRole('alert')).toHaveTextContent("Can't find message");
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    expect(screen.queryByRole('textbox', { name: /Enter the verification code/ })).not.toBeInTheDocument();
    expect(api.calls.filter((call) => call.url.pathname.endsWith('/restore'))).toHaveLength(5);
  }, 15_000);

  it("says the message can't be restored on a 405 (malware)", async () => {
    const user = userEvent.setup();
    stubApi({
      ...fakeRestoreApi().handlers,
      'GET /api/v1/office365_emails/restore': () =>
        errorResponse(405, 'method_not_allowed', 'This message can not be restored. Please contact support'),
    });
    renderPublicPage(PAGE);
    await verifyEmail(user);
    await enterCode(user, RIGHT_CODE);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      "This message can't be restored. Please contact support.",
    );
  });
});

describe('email-actions/restore-email: request modes', () => {
  it('shows the request form after the code, refuses an empty message, then polls until restored', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const fake = fakeRestoreApi({ automatic: false, statusAfterRequest: ['requested', 'restored'] });
    const api = stubApi(fake.handlers);
    renderPublicPage(`${PAGE}&mode=request`);
    await verifyEmail(user);
    await enterCode(user, RIGHT_CODE);

    const message = await screen.findByRole('textbox', {
      name: /Enter a message to be sent with the email restore request/,
    });
    expect(screen.getByRole('heading', { name: 'Email Restore' })).toBeInTheDocument();
    await user.type(message, '<b> </b>  ');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Please enter a message.')).toBeInTheDocument();
    expect(api.calls.some((call) => call.method === 'POST' && call.url.pathname.endsWith('/restore'))).toBe(
      false,
    );

    await user.clear(message);
    await user.type(message, 'It is the invoice from our supplier');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(
      await screen.findByText('The admin has received your request, your email will return once approved.'),
    ).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Thank You' })).toBeInTheDocument();
    const post = api.calls.find((call) => call.method === 'POST' && call.url.pathname.endsWith('/restore'));
    expect(post?.body).toEqual({ commentary: 'It is the invoice from our supplier' });
    expect(query(post)).toMatchObject({ msg: 'msg-1', code: RIGHT_CODE, email: RECIPIENT });

    const polls = () =>
      api.calls.filter((call) => call.url.pathname.endsWith('/restore/msg-1/status')).length;
    await waitFor(() => expect(polls()).toBe(1));
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RESTORE_POLL_INTERVAL_MS);
    });
    expect(await screen.findByText('The email was restored to your mailbox.')).toBeInTheDocument();
    const settled = polls();
    expect(settled).toBe(2);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3 * RESTORE_POLL_INTERVAL_MS);
    });
    expect(polls()).toBe(settled);
  });

  it('sends the request of phish_request_restore mode to phish_request_restore', async () => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi({ automatic: false }).handlers);
    renderPublicPage(`${PAGE}&mode=phish_request_restore`);
    await verifyEmail(user);
    await enterCode(user, RIGHT_CODE);
    await user.type(await screen.findByRole('textbox', { name: /Enter a message/ }), 'Please');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await screen.findByText('The admin has received your request, your email will return once approved.');
    expect(api.calls.filter((call) => call.method === 'POST').map((call) => call.url.pathname)).toContain(
      '/api/v1/office365_emails/phish_request_restore',
    );
  });

  it('without identification shows where a request stands and shows a decline', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const fake = fakeRestoreApi({
      automatic: false,
      identificationNeeded: false,
      statusAfterRequest: ['requested', 'declined'],
    });
    fake.state.status = 'requested';
    const api = stubApi(fake.handlers);
    renderPublicPage(`${PAGE}&mode=request`);
    expect(
      await screen.findByText('The admin has received your request, your email will return once approved.'),
    ).toBeInTheDocument();
    const get = api.calls.find((call) => call.url.pathname === '/api/v1/office365_emails/restore');
    expect(get?.method).toBe('GET');
    expect(query(get).code).toBeUndefined();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(RESTORE_POLL_INTERVAL_MS);
    });
    expect(await screen.findByText('The admin declined your request.')).toBeInTheDocument();
  });
});

describe('email-actions/restore-email: page checks', () => {
  it('goes to /error/410 when the message no longer exists, before asking anything else', async () => {
    const api = stubApi(fakeRestoreApi({ exists: false }).handlers);
    renderPublicPage(PAGE);
    // The hash moves to the console's error page (src/boot.ts then loads the console for it).
    await waitFor(() => expect(window.location.hash).toBe('#/error/410'));
    expect(api.calls.some((call) => call.url.pathname.endsWith('identification_needed'))).toBe(false);
  });

  it.each([
    '/email-actions/restore-email',
    '/email-actions/restore-email?type=office365_emails',
    '/email-actions/restore-email?msg=msg-1',
  ])('says the email cannot be found without type and msg (%s)', async (path) => {
    const api = stubApi();
    renderPublicPage(path);
    expect(await screen.findByRole('alert')).toHaveTextContent('Could not find email.');
    expect(api.calls.filter((call) => call.url.pathname.startsWith('/api/v1/office365'))).toEqual([]);
  });

  it('says the identification cannot be checked when it answers 404, and reads an unparsable answer', async () => {
    stubApi({
      'GET /api/v1/office365_emails/msg-1/entity_exists': () => jsonResponse(200, { isExists: true }),
    });
    renderPublicPage(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent("Error: Can't check the identification");
  });

  it('shows "Error checking the identification" when identification_needed answers without a status', async () => {
    stubApi({
      'GET /api/v1/office365_emails/msg-1/entity_exists': () => jsonResponse(200, { isExists: true }),
      'POST /api/v1/office365_emails/identification_needed': () => jsonResponse(200, { nothing: 1 }),
    });
    renderPublicPage(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent('Error checking the identification');
  });
});
