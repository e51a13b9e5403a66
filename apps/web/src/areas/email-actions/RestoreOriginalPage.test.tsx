import { screen, waitFor } from '@testing-library/dom';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeRestoreApi, RIGHT_CODE } from '../../test/public-restore-api';
import { renderPublicPage } from '../../test/render-public-page';
import { errorResponse, jsonResponse, type RecordedCall, stubApi } from '../../test/render-route';

const PAGE = '/email-actions/restore-original?type=office365_emails&msg=msg-1';
const RECIPIENT = 'ana@acme.test';
const query = (call: RecordedCall | undefined) => Object.fromEntries(call?.url.searchParams ?? []);
const calls = (api: ReturnType<typeof stubApi>, method: string) =>
  api.calls.filter((call) => call.method === method && call.url.pathname.endsWith('/restore_original'));

async function verify(user: ReturnType<typeof userEvent.setup>) {
  await user.type(await screen.findByRole('textbox', { name: /Enter your email address:/ }), RECIPIENT);
  await user.click(screen.getByRole('button', { name: 'Send code' }));
  await user.type(
    await screen.findByRole('textbox', { name: /Enter the verification code that was sent to you/ }),
    RIGHT_CODE,
  );
  await user.click(screen.getByRole('button', { name: 'Verify' }));
}

describe('email-actions/restore-original', () => {
  it('shows its title and progress, checks existence, then asks about identification for restore_original', async () => {
    const { handlers } = fakeRestoreApi({ kind: 'original', automatic: false });
    // Identification answers once the progress has been seen.
    const identification = 'POST /api/v1/office365_emails/identification_needed';
    const answerIdentification = handlers[identification]!;
    let answer = () => {};
    const api = stubApi({
      ...handlers,
      [identification]: (call) =>
        new Promise((resolve) => {
          answer = () => resolve(answerIdentification(call));
        }),
    });
    renderPublicPage(`${PAGE}&mode=request`);
    // The heading is shown while the settings load and again by the flow (another element).
    await screen.findByRole('heading', { name: 'Attachment Restore' });
    expect(
      await screen.findByText('Restoring your attachment(s), this may take a while...'),
    ).toBeInTheDocument();
    await waitFor(() => expect(api.calls.some((call) => call.method === 'POST')).toBe(true));
    answer();
    expect(await screen.findByRole('heading', { name: 'User Verification' })).toBeInTheDocument();
    expect(api.calls.find((call) => call.url.pathname.includes('office365'))?.url.pathname).toBe(
      '/api/v1/office365_emails/msg-1/entity_exists',
    );
    const post = api.calls.find((call) => call.method === 'POST');
    expect(post?.body).toEqual({ action_name: 'restore_original' });
    expect(query(post)).toEqual({ msg: 'msg-1', mode: 'request' });
  });

  it('says the attachment cannot be found when type or msg is missing', async () => {
    stubApi();
    renderPublicPage('/email-actions/restore-original?type=a&id=b');
    expect(await screen.findByRole('alert')).toHaveTextContent("Error: Can't find attachment to restore");
  });

  it('restores automatically after the code, titled Done', async () => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi({ kind: 'original' }).handlers);
    renderPublicPage(`${PAGE}&mode=automatic`);
    await verify(user);
    expect(await screen.findByRole('heading', { name: 'Done' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Attachment restored successfully!');
    expect(query(calls(api, 'GET')[0])).toMatchObject({
      msg: 'msg-1',
      mode: 'automatic',
      code: RIGHT_CODE,
      email: RECIPIENT,
    });
    expect(calls(api, 'POST')).toEqual([]);
  });

  it('refuses an invalid address with "Please input a valid email."', async () => {
    const user = userEvent.setup();
    stubApi(fakeRestoreApi({ kind: 'original' }).handlers);
    renderPublicPage(PAGE);
    await user.type(
      await screen.findByRole('textbox', { name: /Enter your email address:/ }),
      'not an email',
    );
    await user.click(screen.getByRole('button', { name: 'Send code' }));
    expect(await screen.findByText('Please input a valid email.')).toBeInTheDocument();
  });

  it.each([
    ['request', 'av'],
    ['admin_approve', 'av'],
    ['phish_request_restore', 'ap'],
  ])('in %s mode verifies, then sends the request with code=%s', async (mode, code) => {
    const user = userEvent.setup();
    const api = stubApi(fakeRestoreApi({ kind: 'original', automatic: false }).handlers);
    renderPublicPage(`${PAGE}&mode=${mode}`);
    await verify(user);
    const message = await screen.findByRole('textbox', {
      name: /Enter a message to be sent with attachment recover request/,
    });
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(await screen.findByText('Please enter a message.')).toBeInTheDocument();
    expect(calls(api, 'POST')).toEqual([]);

    await user.type(message, 'It is our supplier');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    expect(
      await screen.findByText(
        'The admin has received your request, your attachment will return once approved.',
      ),
    ).toBeInTheDocument();
    const [post] = calls(api, 'POST');
    expect(query(post)).toMatchObject({ msg: 'msg-1', code, email: RECIPIENT });
    expect(post?.body).toEqual({ commentary: 'It is our supplier' });
  });

  it('goes straight to the request form when no identification is needed', async () => {
    const user = userEvent.setup();
    const api = stubApi(
      fakeRestoreApi({ kind: 'original', automatic: false, identificationNeeded: false }).handlers,
    );
    renderPublicPage(`${PAGE}&mode=admin_approve`);
    await user.type(await screen.findByRole('textbox', { name: /Enter a message/ }), 'Please');
    await user.click(screen.getByRole('button', { name: 'Submit' }));
    await screen.findByText(
      'The admin has received your request, your attachment will return once approved.',
    );
    expect(query(calls(api, 'POST')[0])).toEqual({ msg: 'msg-1', mode: 'admin_approve', code: 'av' });
  });

  it.each([
    [405, 'method_not_allowed', 'Error: This attachment can not be restored. Please contact support'],
    [404, 'not_found', "Error: Can't find attachment to restore"],
    [400, 'bad_request', 'The link is not complete'],
  ])('answers %s with its own text', async (status, code, text) => {
    stubApi({
      ...fakeRestoreApi({ kind: 'original', identificationNeeded: false }).handlers,
      'POST /api/v1/office365_emails/restore_original': () =>
        errorResponse(status, code, status === 400 ? 'The link is not complete' : 'server words'),
    });
    renderPublicPage(PAGE);
    expect(await screen.findByRole('alert')).toHaveTextContent(text);
  });

  it('goes to /error/410 when the message is gone', async () => {
    stubApi({
      'GET /api/v1/office365_emails/msg-1/entity_exists': () => jsonResponse(200, { isExists: false }),
    });
    renderPublicPage(PAGE);
    await waitFor(() => expect(window.location.hash).toBe('#/error/410'));
  });
});
