import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildMessage, buildMessageDetail } from '../../test/quarantine-fixtures';
import { buildCurrentUser, errorResponse, jsonResponse, renderRoute, stubApi } from '../../test/render-route';

const PAGE = '/user-interaction/quarantine-item';
const signedIn = {
  'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
  'GET /api/v1/quarantine/retention': () => jsonResponse(200, { days: 30 }),
};
const BULK = 'POST /api/v1/quarantine/messages/bulk';

// Several dialogs per test: slow on a busy machine, never stuck.
describe('Quarantined Items (user-interaction/quarantine-item)', { timeout: 30_000 }, () => {
  it('lists the held messages and filters them by verdict', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () =>
        jsonResponse(200, {
          items: [buildMessage(), buildMessage({ subject: 'Trojan', verdict: 'malware' })],
          total: 2,
        }),
    });
    renderRoute(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Quarantined Items' })).toBeInTheDocument();
    const table = await screen.findByRole('table');
    expect(within(table).getByText('Invoice 4711')).toBeInTheDocument();
    expect(within(table).getByRole('button', { name: 'Release Invoice 4711' })).toBeInTheDocument();
    // Malware can be released too, after a second confirmation (issue 11).
    expect(within(table).getByRole('button', { name: 'Release Trojan' })).toBeInTheDocument();
    await user.selectOptions(screen.getByRole('combobox', { name: 'Verdict' }), 'phishing');
    await waitFor(() =>
      expect(
        api.calls
          .filter((call) => call.url.pathname === '/api/v1/quarantine/messages')
          .at(-1)
          ?.url.searchParams.get('verdict'),
      ).toBe('phishing'),
    );
  });

  it('releases a message after a confirmation and says so', async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [BULK]: () => jsonResponse(200, { results: [{ id: message.id, outcome: 'released', reason: null }] }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Release Invoice 4711' }));
    const dialog = await screen.findByRole('dialog', { name: 'Release 1 message?' });
    expect(dialog).toHaveTextContent('1 message will be delivered to its original recipient.');
    await user.click(within(dialog).getByRole('button', { name: 'Release' }));
    expect(await screen.findByText('1 message released')).toBeInTheDocument();
    const calls = api.calls.filter((call) => call.url.pathname.endsWith('/bulk'));
    expect(calls.map((call) => call.body)).toEqual([{ ids: [message.id], action: 'release' }]);
  });

  it("tells the server's reason when an action is refused", async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [BULK]: () =>
        errorResponse(400, 'bad_request', "Release only to an address in one of your organisation's domains"),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Release Invoice 4711' }));
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Release' }));
    expect(await screen.findByText('The action could not be completed')).toBeInTheDocument();
    expect(
      screen.getByText("Release only to an address in one of your organisation's domains"),
    ).toBeInTheDocument();
  });

  it('selects rows (or the whole page) and deletes them in bulk after a confirmation stating the count', async () => {
    const user = userEvent.setup();
    const a = buildMessage({ subject: 'First' });
    const b = buildMessage({ subject: 'Second' });
    const c = buildMessage({ subject: 'Third' });
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [a, b, c], total: 3 }),
      [BULK]: (call) =>
        jsonResponse(200, {
          results: (call.body as { ids: string[] }).ids.map((id) =>
            id === c.id
              ? { id, outcome: 'skipped', reason: 'already_deleted' }
              : { id, outcome: 'deleted', reason: null },
          ),
        }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table');
    await user.click(within(table).getByRole('checkbox', { name: 'Select First' }));
    expect(screen.getByRole('status', { name: '' })).toHaveTextContent('1 selected');
    // The keyboard reaches the page's select-all box and ticks it with Space.
    const all = within(table).getByRole('checkbox', { name: 'Select all messages on this page' });
    all.focus();
    await user.keyboard(' ');
    expect(within(table).getByRole('checkbox', { name: 'Select Third' })).toBeChecked();
    const bar = screen.getByRole('group', { name: 'Actions on the selected messages' });
    await user.click(within(bar).getByRole('button', { name: 'Delete 3' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete 3 messages?' });
    expect(dialog).toHaveTextContent('3 messages will be deleted with their content.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('2 messages deleted')).toBeInTheDocument();
    expect(screen.getByText('1 message left as it was')).toBeInTheDocument();
    expect(screen.getByText('already deleted')).toBeInTheDocument();
    const calls = api.calls.filter((call) => call.url.pathname.endsWith('/bulk'));
    expect(calls.map((call) => call.body)).toEqual([{ ids: [a.id, b.id, c.id], action: 'delete' }]);
  });

  it('asks for a second, explicit confirmation before releasing malware in bulk', async () => {
    const user = userEvent.setup();
    const a = buildMessage({ subject: 'Invoice' });
    const m = buildMessage({ subject: 'Trojan', verdict: 'malware' });
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [a, m], total: 2 }),
      [BULK]: () =>
        jsonResponse(200, {
          results: [
            { id: a.id, outcome: 'released', reason: null },
            { id: m.id, outcome: 'released', reason: null },
          ],
        }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table');
    await user.click(within(table).getByRole('checkbox', { name: 'Select all messages on this page' }));
    await user.click(screen.getByRole('button', { name: 'Release 2' }));
    const dialog = await screen.findByRole('dialog', { name: 'Release 2 messages?' });
    expect(dialog).toHaveTextContent('1 of these messages contains malware.');
    const confirm = within(dialog).getByRole('button', { name: 'Release' });
    expect(confirm).toBeDisabled();
    await user.click(confirm);
    expect(api.calls.filter((call) => call.url.pathname.endsWith('/bulk'))).toHaveLength(0);
    await user.click(
      within(dialog).getByRole('checkbox', { name: 'I understand: release 1 message with malware as well' }),
    );
    expect(confirm).toBeEnabled();
    await user.click(confirm);
    expect(await screen.findByText('2 messages released')).toBeInTheDocument();
    const calls = api.calls.filter((call) => call.url.pathname.endsWith('/bulk'));
    expect(calls.map((call) => call.body)).toEqual([
      { ids: [a.id, m.id], action: 'release', confirm_malware: true },
    ]);
  });

  it('blocks the sender from the preview after a confirmation, and records feedback', async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [`GET /api/v1/quarantine/messages/${message.id}`]: () => jsonResponse(200, buildMessageDetail(message)),
      [`POST /api/v1/quarantine/messages/${message.id}/block_sender`]: () =>
        jsonResponse(200, { list: 'block', value: 'supplier.example', added: true }),
      [`POST /api/v1/quarantine/messages/${message.id}/feedback`]: () =>
        jsonResponse(200, {
          feedback: 'spam',
          feedback_by: 'admin@acme.test',
          feedback_at: '2025-03-01T12:00:00Z',
        }),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Open Invoice 4711' }));
    const drawer = await screen.findByRole('dialog', { name: 'Message preview' });
    expect(within(drawer).getByRole('link', { name: 'Download .eml' })).toHaveAttribute(
      'href',
      `/api/v1/quarantine/messages/${message.id}/eml`,
    );
    await user.click(within(drawer).getByRole('button', { name: 'Block domain' }));
    const confirm = await screen.findByRole('dialog', { name: 'Block supplier.example?' });
    await user.click(within(confirm).getByRole('button', { name: 'Block domain' }));
    expect(await screen.findByText('supplier.example is blocked')).toBeInTheDocument();
    await user.click(within(drawer).getByRole('button', { name: 'Is spam' }));
    expect(await screen.findByText('Feedback recorded')).toBeInTheDocument();
    expect(api.calls.filter((call) => call.method === 'POST').map((call) => call.body)).toEqual([
      { scope: 'domain' },
      { feedback: 'spam' },
    ]);
  });

  it('previews headers and a text body; a message without text says so', async () => {
    const user = userEvent.setup();
    const message = buildMessage();
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [message], total: 1 }),
      [`GET /api/v1/quarantine/messages/${message.id}`]: () =>
        jsonResponse(200, buildMessageDetail(message, { body_text: null })),
    });
    renderRoute(PAGE);
    await user.click(await screen.findByRole('button', { name: 'Open Invoice 4711' }));
    const drawer = await screen.findByRole('dialog', { name: 'Message preview' });
    expect(await within(drawer).findByText('This message has no text body.')).toBeInTheDocument();
    await user.click(within(drawer).getByRole('button', { name: 'Headers (2)' }));
    expect(within(drawer).getByText('"Billing" <billing@supplier.example>')).toBeInTheDocument();
  });

  it('shows an empty state when nothing is held', async () => {
    stubApi({
      ...signedIn,
      'GET /api/v1/quarantine/messages': () => jsonResponse(200, { items: [], total: 0 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('No quarantined messages')).toBeInTheDocument();
  });
});
