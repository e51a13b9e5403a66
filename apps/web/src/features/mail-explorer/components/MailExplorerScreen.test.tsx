import type { MailLogEntry } from '@moat/contracts/mail-explorer';
import { messageTracePath, USER_INTERACTION_ROUTES } from '@moat/contracts/routes';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const PAGE = '/mail-explorer';
const LIST = '/api/v1/mail_explorer';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const lastQuery = (calls: RecordedCall[]) =>
  Object.fromEntries(calls.filter((call) => call.url.pathname === LIST).at(-1)?.url.searchParams ?? []);

let n = 0;
/** A message as GET /api/v1/mail_explorer lists it. */
function buildEntry(overrides: Partial<MailLogEntry> = {}): MailLogEntry {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    received_at: '2025-03-01T10:00:00.000Z',
    sender: 'news@shop.example',
    sender_name: 'Shop',
    recipient: 'ana@acme.test',
    subject: 'Spring sale',
    message_id: '<spring@shop.example>',
    verdict: 'clean',
    action: 'delivered',
    reasons: [],
    spf: 'pass',
    dkim: 'pass',
    dmarc: 'pass',
    size: 4096,
    attachments: 0,
    quarantine_message_id: null,
    delivery: 'sent',
    ...overrides,
  };
}

describe('Mail Explorer (/mail-explorer)', () => {
  it('lists the processed messages with verdict, action and authentication, and links a held one', async () => {
    const user = userEvent.setup();
    const held = buildEntry({
      subject: 'Invoice 4711',
      sender: 'billing@supp1ier.example',
      verdict: 'phishing',
      action: 'quarantined',
      reasons: ['Lookalike domain', 'Credential form'],
      spf: 'fail',
      dmarc: 'temperror',
      quarantine_message_id: '00000000-0000-4000-8000-000000000999',
      delivery: 'none',
    });
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildEntry(), held], total: 2 }),
    });
    renderRoute(PAGE);
    expect(await screen.findByRole('heading', { level: 1, name: 'Mail Explorer' })).toBeInTheDocument();
    const table = await screen.findByRole('table', { name: 'Processed messages' });
    expect(lastQuery(api.calls)).toEqual({ sort: 'received_at', dir: 'desc', limit: '25', offset: '0' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    const heldRow = rows[2] as HTMLElement;
    expect(within(heldRow).getByText('Invoice 4711')).toBeInTheDocument();
    expect(within(heldRow).getByText('billing@supp1ier.example')).toBeInTheDocument();
    expect(within(heldRow).getByText('Phishing')).toBeInTheDocument();
    expect(within(heldRow).getByText('Quarantined')).toBeInTheDocument();
    // Authentication in one column, each check named with its result.
    expect(within(heldRow).getByText('fail')).toHaveAttribute('data-tone', 'bad');
    expect(within(heldRow).getByText('temporary error')).toBeInTheDocument();
    expect(
      within(heldRow).getByRole('link', { name: 'View in Quarantined Items: Invoice 4711' }),
    ).toHaveAttribute('href', USER_INTERACTION_ROUTES.quarantineItems);
    expect(within(rows[1] as HTMLElement).getByText('Clean')).toBeInTheDocument();
    expect(
      within(rows[1] as HTMLElement).queryByRole('link', { name: /View in Quarantined Items/ }),
    ).not.toBeInTheDocument();
    expect(within(rows[1] as HTMLElement).getByText('Sent')).toBeInTheDocument();
    expect(within(heldRow).getByText('Held')).toBeInTheDocument();
    expect(within(heldRow).getByRole('link', { name: 'Open the trace of Invoice 4711' })).toHaveAttribute(
      'href',
      messageTracePath(held.id),
    );

    const details = within(heldRow).getByRole('button', { name: 'Details of Invoice 4711' });
    expect(details).toHaveAttribute('aria-expanded', 'false');
    await user.click(details);
    expect(details).toHaveAttribute('aria-expanded', 'true');
    const panel = document.getElementById(details.getAttribute('aria-controls') ?? '');
    expect(panel).not.toBeNull();
    expect(within(panel as HTMLElement).getByText('Lookalike domain')).toBeInTheDocument();
    expect(within(panel as HTMLElement).getByText('Credential form')).toBeInTheDocument();
    await user.click(details);
    expect(screen.queryByText('Lookalike domain')).not.toBeInTheDocument();
  });

  it('sends the search, the verdict and the action to the server', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildEntry()], total: 1 }),
    });
    renderRoute(PAGE);
    await screen.findByRole('table');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Verdict' }), 'malware');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action' }), 'attachments_removed');
    await user.type(screen.getByRole('searchbox', { name: 'Search' }), '  invoice ');
    await waitFor(() =>
      expect(lastQuery(api.calls)).toEqual({
        q: 'invoice',
        verdict: 'malware',
        action: 'attachments_removed',
        sort: 'received_at',
        dir: 'desc',
        limit: '25',
        offset: '0',
      }),
    );
    await user.selectOptions(screen.getByRole('combobox', { name: 'Delivery' }), 'deferred');
    await waitFor(() =>
      expect(lastQuery(api.calls)).toMatchObject({ action: 'attachments_removed', delivery: 'deferred' }),
    );
  }, 15_000);

  it('opens with the filters of its address, sorts by a column and exports what it shows', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildEntry()], total: 1 }),
    });
    renderRoute(`${PAGE}?verdict=phishing&range=7d&message_id=%3Cabc%40x.example%3E&verdict2=ignored`);
    await screen.findByRole('table');
    const first = lastQuery(api.calls);
    expect(first).toMatchObject({ verdict: 'phishing', message_id: '<abc@x.example>', sort: 'received_at' });
    // The last 7 days, counted back from now (to the minute).
    const from = Date.parse(first.from ?? '');
    expect(Date.now() - from).toBeGreaterThan(7 * 24 * 3600_000 - 1);
    expect(Date.now() - from).toBeLessThan(7 * 24 * 3600_000 + 61_000);
    expect(screen.getByRole('combobox', { name: 'Verdict' })).toHaveValue('phishing');
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('7d');

    const subject = screen.getByRole('columnheader', { name: /Subject/ });
    expect(subject).toHaveAttribute('aria-sort', 'none');
    await user.click(screen.getByRole('button', { name: 'Sort by Subject' }));
    await waitFor(() => expect(lastQuery(api.calls)).toMatchObject({ sort: 'subject', dir: 'asc' }));
    expect(screen.getByRole('columnheader', { name: /Subject/ })).toHaveAttribute('aria-sort', 'ascending');
    await user.click(screen.getByRole('button', { name: 'Sort by Subject' }));
    await waitFor(() => expect(lastQuery(api.calls)).toMatchObject({ sort: 'subject', dir: 'desc' }));

    const exportLink = screen.getByRole('link', { name: 'Export CSV' });
    const href = new URL(exportLink.getAttribute('href') ?? '', 'http://x');
    expect(href.pathname).toBe('/api/v1/mail_explorer/export');
    expect(Object.fromEntries(href.searchParams)).toMatchObject({
      verdict: 'phishing',
      message_id: '<abc@x.example>',
      sort: 'subject',
      dir: 'desc',
    });
    expect(href.searchParams.has('limit')).toBe(false);
  });

  it('asks for whole days, both included, when custom dates are chosen', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildEntry()], total: 1 }),
    });
    renderRoute(`${PAGE}?range=custom&from=2025-03-01&to=2025-03-02`);
    await screen.findByRole('table');
    const query = lastQuery(api.calls);
    expect(query.from).toBe(new Date(2025, 2, 1).toISOString());
    expect(query.to).toBe(new Date(2025, 2, 3).toISOString());
    await user.selectOptions(screen.getByRole('combobox', { name: 'Time range' }), '');
    await waitFor(() => expect(lastQuery(api.calls).from).toBeUndefined());
  });

  it('says so when the gateway has processed nothing yet', async () => {
    stubApi({ ...signedIn, [`GET ${LIST}`]: () => jsonResponse(200, { items: [], total: 0 }) });
    renderRoute(PAGE);
    expect(await screen.findByText('No messages yet')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it("shows the error's message when the server refuses (the role was just taken away)", async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      [`GET ${LIST}`]: () => errorResponse(403, 'insufficient_privileges', 'Insufficient privileges'),
    });
    renderRoute(PAGE);
    const alert = await screen.findByRole('alert', { name: /The list could not be loaded/ });
    expect(within(alert).getByText('You do not have the privileges for this action.')).toBeInTheDocument();
    expect(within(alert).getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});
