import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildMessage, buildMessageDetail, buildRestoreRequest } from '../../test/quarantine-fixtures';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../test/render-route';

const PAGE = '/user-interaction/restore-request-and-clean-attachments';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const lists = (calls: RecordedCall[]) =>
  calls.filter((call) => call.url.pathname === '/api/v1/restore_requests');

describe('Restore Requests (user-interaction/restore-request-and-clean-attachments)', () => {
  it('lists the requests in the shell, with its navigation entry', async () => {
    const request = buildRestoreRequest();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [request], total: 1 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Restore Requests' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(within(table).getByText('Invoice 4711')).toBeInTheDocument();
    expect(within(table).getByText('It is the invoice from our supplier')).toBeInTheDocument();
    expect(within(table).getByText('Requested')).toBeInTheDocument();
    expect(within(table).getByText('Suspicious')).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Main navigation' });
    expect(within(nav).getByRole('link', { name: 'Restore Requests' })).toHaveAttribute(
      'aria-current',
      'page',
    );
    expect(within(nav).getByRole('link', { name: 'Quarantined Items' })).toBeInTheDocument();
    expect(Object.fromEntries(lists(api.calls)[0]?.url.searchParams ?? [])).toEqual({
      limit: '25',
      offset: '0',
    });
  });

  it('searches with the trimmed text and filters by status', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [], total: 0 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('No restore requests')).toBeInTheDocument();
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), '  invoice  ');
    await waitFor(() =>
      expect(lists(api.calls).some((call) => call.url.searchParams.get('q') === 'invoice')).toBe(true),
    );
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'declined');
    await waitFor(() => expect(lists(api.calls).at(-1)?.url.searchParams.get('status')).toBe('declined'));
    expect(lists(api.calls).at(-1)?.url.searchParams.get('q')).toBe('invoice');
    expect(await screen.findByText('Nothing matches')).toBeInTheDocument();
  });

  it('approves the selected requests in bulk after a confirmation, posting their ids', async () => {
    const user = userEvent.setup();
    const first = buildRestoreRequest();
    const second = buildRestoreRequest({ message: buildMessage({ subject: 'Payroll' }) });
    const done = buildRestoreRequest({ status: 'restored', message: buildMessage({ subject: 'Old' }) });
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [first, second, done], total: 3 }),
      'POST /api/v1/restore_requests/bulk': (call) =>
        jsonResponse(200, {
          results: (call.body as { ids: string[] }).ids.map((id) => ({
            id,
            status: 'restored',
            error: null,
          })),
        }),
    });
    renderRoute(PAGE);
    await screen.findByRole('table');
    expect(screen.getByRole('checkbox', { name: 'Select the request for Old' })).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'Select all open requests on this page' }));
    expect(screen.getByText('2 selected')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Approve selected' }));
    const dialog = await screen.findByRole('dialog', { name: 'Approve 2 requests?' });
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('2 requests approved')).toBeInTheDocument();
    const bulk = api.calls.find((call) => call.url.pathname === '/api/v1/restore_requests/bulk');
    expect(bulk?.body).toEqual({ ids: [first.id, second.id], action: 'approve' });
    await waitFor(() => expect(lists(api.calls).length).toBeGreaterThan(1));
  });

  it('declines only with a reason', async () => {
    const user = userEvent.setup();
    const request = buildRestoreRequest();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [request], total: 1 }),
      [`POST /api/v1/restore_requests/${request.id}/decline`]: () =>
        jsonResponse(200, { status: 'declined' }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Decline the request for Invoice 4711' }));
    const dialog = await screen.findByRole('dialog', { name: 'Decline the request' });
    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    expect(await within(dialog).findByText('Enter a reason.')).toBeInTheDocument();
    expect(api.calls.some((call) => call.url.pathname.endsWith('/decline'))).toBe(false);

    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'Looks like phishing');
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    expect(await screen.findByText('Request declined')).toBeInTheDocument();
    const decline = api.calls.find((call) => call.url.pathname.endsWith('/decline'));
    expect(decline?.body).toEqual({ reason: 'Looks like phishing' });
  });

  it('asks for a reason before a bulk decline and reports the requests that failed', async () => {
    const user = userEvent.setup();
    const first = buildRestoreRequest();
    const second = buildRestoreRequest({ message: buildMessage({ subject: 'Payroll' }) });
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [first, second], total: 2 }),
      'POST /api/v1/restore_requests/bulk': () =>
        jsonResponse(200, {
          results: [
            { id: first.id, status: 'declined', error: null },
            { id: second.id, status: null, error: 'This request is already restored' },
          ],
        }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('checkbox', { name: 'Select the request for Invoice 4711' }));
    await user.click(screen.getByRole('checkbox', { name: 'Select the request for Payroll' }));
    await user.click(screen.getByRole('button', { name: 'Decline selected' }));
    const dialog = await screen.findByRole('dialog', { name: 'Decline 2 requests' });
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    expect(await within(dialog).findByText('Enter a reason.')).toBeInTheDocument();
    await user.type(within(dialog).getByRole('textbox', { name: /Reason/ }), 'Not needed');
    await user.click(within(dialog).getByRole('button', { name: 'Decline' }));
    expect(await screen.findByText('Request declined')).toBeInTheDocument();
    expect(screen.getByText('1 request could not be changed')).toBeInTheDocument();
    expect(screen.getByText('This request is already restored')).toBeInTheDocument();
    expect(api.calls.find((call) => call.url.pathname.endsWith('/bulk'))?.body).toEqual({
      ids: [first.id, second.id],
      action: 'decline',
      reason: 'Not needed',
    });
  });

  it('previews the message as plain text: a script in the body is text, links are not anchors', async () => {
    const user = userEvent.setup();
    const message = buildMessage({
      attachments: [
        {
          id: 'att-1',
          filename: 'invoice.pdf',
          content_type: 'application/pdf',
          size: 12_345,
          sha256: 'b'.repeat(64),
          state: 'removed',
        },
      ],
    });
    const request = buildRestoreRequest({ message });
    stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () => jsonResponse(200, { items: [request], total: 1 }),
      [`GET /api/v1/quarantine/messages/${message.id}`]: () =>
        jsonResponse(
          200,
          buildMessageDetail(message, {
            body_text:
              'Pay now <script>window.hacked = true</script>\n<a href="https://evil.example">here</a>',
            links: [{ text: 'here', href: 'https://evil.example/pay' }],
          }),
        ),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Open Invoice 4711' }));
    const drawer = await screen.findByRole('dialog', { name: 'Message preview' });
    const body = await within(drawer).findByText(/Pay now/);
    expect(body.tagName).toBe('PRE');
    expect(body.textContent).toContain('<script>window.hacked = true</script>');
    expect(drawer.querySelector('script')).toBeNull();
    expect(within(drawer).queryAllByRole('link')).toEqual([]);
    expect(drawer.querySelector('a')).toBeNull();
    expect(within(drawer).getByText('https://evil.example/pay')).toBeInTheDocument();
    expect(within(drawer).getByText('invoice.pdf')).toBeInTheDocument();
    expect(within(drawer).getByText('b'.repeat(64))).toBeInTheDocument();
    expect(within(drawer).getByText('12.1 KB')).toBeInTheDocument();
    expect(within(drawer).getByText('Removed')).toBeInTheDocument();
    expect(within(drawer).getByText('Request from ana@acme.test')).toBeInTheDocument();
    expect((window as { hacked?: boolean }).hacked).toBeUndefined();
  });

  it('shows the error with a retry when the list cannot be loaded', async () => {
    const user = userEvent.setup();
    let fail = true;
    stubApi({
      ...signedIn,
      'GET /api/v1/restore_requests': () =>
        fail
          ? errorResponse(500, 'internal_error', 'boom')
          : jsonResponse(200, { items: [buildRestoreRequest()], total: 1 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('The list could not be loaded')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('table')).toBeInTheDocument();
  });

  it('sends a plain user to the no-access page without asking the API', async () => {
    let asked = false;
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      'GET /api/v1/restore_requests': () => {
        asked = true;
        return jsonResponse(200, { items: [], total: 0 });
      },
    });
    const app = renderRoute(PAGE);
    await waitFor(() => expect(app.location()).toBe('/no-access-page'));
    expect(await screen.findByText('This page is not open to your account')).toBeInTheDocument();
    expect(asked).toBe(false);
  });

  it('shows the permission dialog when the server refuses (403 Insufficient privileges, e.g. the role was just taken away)', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/restore_requests': () =>
        errorResponse(403, 'insufficient_privileges', 'Insufficient privileges'),
    });
    renderRoute(PAGE);
    expect(await screen.findByRole('dialog', { name: 'Permission error' })).toBeInTheDocument();
  });
});
