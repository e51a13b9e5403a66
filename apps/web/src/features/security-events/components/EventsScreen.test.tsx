import type { SecurityEvent, SecurityEventDetail } from '@moat/contracts/security-events';
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

const PAGE = '/security-events';
const LIST = '/api/v1/security_events';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })) };
const lastQuery = (calls: RecordedCall[]) =>
  Object.fromEntries(calls.filter((call) => call.url.pathname === LIST).at(-1)?.url.searchParams ?? []);

let n = 0;
function buildEvent(overrides: Partial<SecurityEvent> = {}): SecurityEvent {
  n += 1;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    created_at: '2025-03-01T10:00:00.000Z',
    type: 'hold',
    engine: 'anti_malware',
    verdict: 'malware',
    severity: 'high',
    description: 'EICAR test file in invoice.pdf',
    recipient: 'ana@acme.test',
    sender: 'billing@supplier.example',
    subject: 'Invoice 4711',
    quarantine_message_id: '00000000-0000-4000-8000-000000000999',
    ...overrides,
  };
}

// Each test drives several selects and a lazy screen: generous on a busy machine.
describe('Events (/security-events)', { timeout: 30_000 }, () => {
  it('lists the events with type, severity and verdict, and sends the filters to the server', async () => {
    const user = userEvent.setup();
    const first = buildEvent();
    const banner = buildEvent({ type: 'banner', verdict: 'suspicious', severity: 'low', subject: '' });
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [first, banner], total: 2 }),
    });
    renderRoute(PAGE);
    const table = await screen.findByRole('table', { name: 'Security events' });
    expect(lastQuery(api.calls)).toEqual({ sort: 'created_at', dir: 'desc', limit: '25', offset: '0' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    const held = rows[1] as HTMLElement;
    expect(within(held).getByText('Held')).toBeInTheDocument();
    expect(within(held).getByText('High')).toBeInTheDocument();
    expect(within(held).getByText('Malware')).toBeInTheDocument();
    expect(within(held).getByRole('link', { name: 'Open the event: Invoice 4711' })).toHaveAttribute(
      'href',
      `/security-events/${first.id}`,
    );
    // An event without a subject is named by its description.
    const bannerRow = rows[2] as HTMLElement;
    expect(within(bannerRow).getByText('Delivered with a banner')).toBeInTheDocument();
    expect(
      within(bannerRow).getByRole('link', { name: `Open the event: ${banner.description}` }),
    ).toBeInTheDocument();

    await user.selectOptions(screen.getByRole('combobox', { name: 'Type' }), 'strip');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Verdict' }), 'phishing');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Severity' }), 'high');
    await user.type(screen.getByRole('textbox', { name: 'Recipient' }), 'ana@{Enter}');
    await waitFor(() =>
      expect(lastQuery(api.calls)).toEqual({
        verdict: 'phishing',
        type: 'strip',
        severity: 'high',
        recipient: 'ana@',
        sort: 'created_at',
        dir: 'desc',
        limit: '25',
        offset: '0',
      }),
    );
  });

  it('opens with the filters of its address (an Overview or chart link) and exports what it shows', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [buildEvent()], total: 1 }),
    });
    renderRoute(`${PAGE}?verdict=malware&range=30d&sender=supplier&engine=anti_malware`);
    await screen.findByRole('table');
    const first = lastQuery(api.calls);
    expect(first).toMatchObject({ verdict: 'malware', sender: 'supplier', engine: 'anti_malware' });
    expect(Date.now() - Date.parse(first.from ?? '')).toBeGreaterThan(30 * 24 * 3600_000 - 1);
    expect(screen.getByRole('combobox', { name: 'Verdict' })).toHaveValue('malware');
    expect(screen.getByRole('combobox', { name: 'Time range' })).toHaveValue('30d');
    expect(screen.getByRole('textbox', { name: 'Sender' })).toHaveValue('supplier');

    await user.click(screen.getByRole('button', { name: 'Sort by Severity' }));
    await waitFor(() => expect(lastQuery(api.calls)).toMatchObject({ sort: 'severity', dir: 'desc' }));

    const href = new URL(
      screen.getByRole('link', { name: 'Export CSV' }).getAttribute('href') ?? '',
      'http://x',
    );
    expect(href.pathname).toBe('/api/v1/security_events/export');
    expect(Object.fromEntries(href.searchParams)).toMatchObject({
      verdict: 'malware',
      sender: 'supplier',
      sort: 'severity',
      dir: 'desc',
    });
    expect(href.searchParams.has('limit')).toBe(false);
  });

  it('opens an event: findings, policy decision, the message’s story and links to the message', async () => {
    const user = userEvent.setup();
    const event = buildEvent();
    const later = buildEvent({ type: 'release', description: 'Released to ana@acme.test by an admin' });
    const detail: SecurityEventDetail = {
      event,
      findings: [{ engine: 'anti_malware', verdict: 'malware', reason: 'EICAR test file in invoice.pdf' }],
      decision: { verdict: 'malware', action: 'quarantine', source: 'default_policy' },
      history: [
        {
          at: event.created_at,
          kind: 'event',
          event_id: event.id,
          status: 'hold',
          description: event.description,
        },
        {
          at: '2025-03-01T11:00:00.000Z',
          kind: 'restore_request',
          event_id: null,
          status: 'requested',
          description: 'ana@acme.test asked to restore the message',
        },
        {
          at: '2025-03-01T12:00:00.000Z',
          kind: 'event',
          event_id: later.id,
          status: 'release',
          description: later.description,
        },
      ],
      mail_log_id: '00000000-0000-4000-8000-00000000abcd',
    };
    stubApi({
      ...signedIn,
      [`GET ${LIST}`]: () => jsonResponse(200, { items: [event], total: 1 }),
      [`GET ${LIST}/${event.id}`]: () => jsonResponse(200, detail),
    });
    renderRoute(`${PAGE}?verdict=malware`);
    await user.click(await screen.findByRole('link', { name: 'Open the event: Invoice 4711' }));

    expect(await screen.findByRole('heading', { level: 2, name: 'Invoice 4711' })).toBeInTheDocument();
    const findings = screen.getByRole('table', { name: 'Findings of the security engines' });
    expect(within(findings).getByText('EICAR test file in invoice.pdf')).toBeInTheDocument();
    const decision = screen.getByRole('region', { name: 'Policy decision' });
    expect(within(decision).getByText('The default policy')).toBeInTheDocument();
    expect(within(decision).getByText('Hold')).toBeInTheDocument();
    const story = screen.getByRole('region', { name: 'What happened to the message' });
    const steps = within(story).getAllByRole('listitem');
    expect(steps).toHaveLength(3);
    expect(steps[1]).toHaveTextContent('ana@acme.test asked to restore the message');
    expect(within(steps[2] as HTMLElement).getByRole('link')).toHaveAttribute(
      'href',
      `/security-events/${later.id}`,
    );
    expect(screen.getByRole('link', { name: 'Open the message trace' })).toHaveAttribute(
      'href',
      '/mail-explorer/message/00000000-0000-4000-8000-00000000abcd',
    );
    expect(screen.getByRole('link', { name: 'View in Quarantined Items' })).toHaveAttribute(
      'href',
      '/user-interaction/quarantine-item',
    );
    // Back returns to the list as it was filtered.
    expect(screen.getByRole('link', { name: /Back to Events/ })).toHaveAttribute(
      'href',
      '/security-events?verdict=malware',
    );
  });

  it('says so when the event does not exist or is not the reader’s, and offers the way back', async () => {
    const id = '00000000-0000-4000-8000-0000000000ff';
    stubApi({
      ...signedIn,
      [`GET ${LIST}/${id}`]: () => errorResponse(404, 'not_found', 'No such event'),
    });
    renderRoute(`${PAGE}/${id}`);
    expect(await screen.findByText('This event does not exist or is not yours to see.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Back to Events/ })).toHaveAttribute('href', '/security-events');
  });

  it('shows a plain user their event without links to the admins’ pages', async () => {
    // A held message with a trace: both pages are admin-only, so neither link is offered.
    const event = buildEvent({ recipient: 'ada@example.com' });
    expect(event.quarantine_message_id).toBeTruthy();
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      [`GET ${LIST}/${event.id}`]: () =>
        jsonResponse(200, {
          event,
          findings: [],
          decision: null,
          history: [],
          mail_log_id: '00000000-0000-4000-8000-00000000abcd',
        }),
    });
    renderRoute(`${PAGE}/${event.id}`);
    expect(await screen.findByRole('heading', { level: 2, name: 'Invoice 4711' })).toBeInTheDocument();
    expect(screen.getByText('No engine finding was recorded for this event.')).toBeInTheDocument();
    expect(screen.getByText('No policy decision was recorded for this event.')).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Open the message trace' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'View in Quarantined Items' })).not.toBeInTheDocument();
    expect(
      screen.getByText("The message's trace and its held copy are open to administrators only."),
    ).toBeInTheDocument();
  });
});
