import type { AnalyticsDashboard } from '@moat/contracts/analytics';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import {
  buildCurrentUser,
  jsonResponse,
  type RecordedCall,
  renderRoute,
  stubApi,
} from '../../../test/render-route';

const PAGE = '/analytics/dashboard';
const API = '/api/v1/analytics';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const lastQuery = (calls: RecordedCall[]) =>
  Object.fromEntries(calls.filter((call) => call.url.pathname === API).at(-1)?.url.searchParams ?? []);

const verdicts = { clean: 0, phishing: 0, malware: 0, spam: 0, suspicious: 0 };
const actions = {
  delivered: 0,
  delivered_banner: 0,
  attachments_removed: 0,
  quarantined: 0,
  quarantined_silent: 0,
  failed: 0,
};

/** The dashboard as GET /api/v1/analytics answers it: three messages over two days. */
function buildDashboard(overrides: Partial<AnalyticsDashboard> = {}): AnalyticsDashboard {
  return {
    from: '2025-11-10T00:00:00.000Z',
    to: '2025-11-12T00:00:00.000Z',
    bucket: 'day',
    totals: {
      messages: 3,
      verdict: { ...verdicts, clean: 1, spam: 1, malware: 1 },
      action: { ...actions, delivered: 1, quarantined: 2 },
    },
    volume: [
      {
        start: '2025-11-10T00:00:00.000Z',
        verdict: { ...verdicts, clean: 1, spam: 1 },
        action: { ...actions, delivered: 1, quarantined: 1 },
      },
      {
        start: '2025-11-11T00:00:00.000Z',
        verdict: { ...verdicts, malware: 1 },
        action: { ...actions, quarantined: 1 },
      },
    ],
    top_recipients: [{ address: 'bob@acme.test', count: 2 }],
    top_senders: [{ address: 'evil@phish.example', count: 2 }],
    top_sender_domains: [{ domain: 'phish.example', count: 2 }],
    engines: [{ engine: 'clamav', count: 1 }],
    auth: { spf: { pass: 2, total: 3 }, dkim: { pass: 3, total: 3 }, dmarc: { pass: 0, total: 3 } },
    summary: {
      from: '2025-11-10T00:00:00.000Z',
      to: '2025-11-12T00:00:00.000Z',
      messages: 3,
      not_clean: 2,
      verdict: { ...verdicts, clean: 1, spam: 1, malware: 1 },
      held: 2,
      delivered_banner: 0,
      attachments_removed: 0,
    },
    ...overrides,
  };
}

describe('Analytics Dashboard (/analytics/dashboard)', () => {
  it('shows the counts per bucket in a table, the top lists and the pass rates, each linked to its list', async () => {
    const api = stubApi({ ...signedIn, [`GET ${API}`]: () => jsonResponse(200, buildDashboard()) });
    renderRoute(PAGE);

    const byVerdict = await screen.findByRole(
      'table',
      { name: 'Mail volume by verdict, per time bucket' },
      // The first render loads the chart library's chunk.
      { timeout: 10_000 },
    );
    // The last 30 days by default (the Overview's period), counted back from now.
    const { from } = lastQuery(api.calls);
    expect(Date.now() - Date.parse(from ?? '')).toBeGreaterThanOrEqual(30 * 24 * 3600_000 - 60_000);
    // The headline figures are the Overview's, each saying what it counts over which days.
    const held = screen.getByRole('region', { name: 'Held on arrival' });
    expect(within(held).getByText('2')).toBeInTheDocument();
    expect(
      within(held).getByText(/^Received from Nov 10, 2025 to Nov 11, 2025 and kept from the recipient/),
    ).toBeInTheDocument();
    const rows = within(byVerdict).getAllByRole('row');
    expect(rows.map((row) => row.textContent)).toEqual([
      'Day (UTC)CleanPhishingMalwareSpamSuspicious',
      'Nov 1010010',
      'Nov 1100100',
    ]);

    expect(screen.getByRole('link', { name: 'Spam: 1 messages, open in Mail Explorer' })).toHaveAttribute(
      'href',
      '/mail-explorer?range=30d&verdict=spam',
    );
    expect(
      screen.getByRole('link', { name: 'Quarantined: 2 messages, open in Mail Explorer' }),
    ).toHaveAttribute('href', '/mail-explorer?range=30d&action=quarantined');
    const recipients = screen.getByRole('table', { name: 'Top targeted recipients' });
    expect(within(recipients).getByRole('link', { name: 'bob@acme.test' })).toHaveAttribute(
      'href',
      '/mail-explorer?q=bob%40acme.test&range=30d',
    );
    expect(within(recipients).getByText('2')).toBeInTheDocument();
    const domains = screen.getByRole('table', { name: 'Top blocked sender domains' });
    expect(within(domains).getByRole('link', { name: 'phish.example' })).toHaveAttribute(
      'href',
      '/mail-explorer?q=%40phish.example&range=30d',
    );
    const engines = screen.getByRole('table', { name: 'Detections by engine' });
    expect(within(engines).getByRole('link', { name: 'ClamAV' })).toHaveAttribute(
      'href',
      '/security-events?engine=clamav&range=30d',
    );
    expect(screen.getByText('SPF: 66.7%')).toBeInTheDocument();
    expect(screen.getByText('2 of 3 messages passed')).toBeInTheDocument();
    expect(screen.getByText('DMARC: 0%')).toBeInTheDocument();
  }, 20_000);

  it('asks for custom days and carries them into the drill-down links', async () => {
    const user = userEvent.setup();
    const api = stubApi({ ...signedIn, [`GET ${API}`]: () => jsonResponse(200, buildDashboard()) });
    const view = renderRoute(`${PAGE}?range=custom&from=2025-11-10&to=2025-11-11`);
    await screen.findByRole('table', { name: 'Top blocked senders' }, { timeout: 10_000 });
    const query = lastQuery(api.calls);
    expect(new Date(query.from ?? '').getDate()).toBe(10);
    // The last day is included: the range ends where the next day starts.
    expect(new Date(query.to ?? '').getDate()).toBe(12);
    expect(screen.getByRole('link', { name: 'evil@phish.example' })).toHaveAttribute(
      'href',
      '/mail-explorer?q=evil%40phish.example&range=custom&from=2025-11-10&to=2025-11-11',
    );

    await user.selectOptions(screen.getByRole('combobox', { name: 'Time range' }), '7d');
    await waitFor(() => expect(view.location()).toBe(`${PAGE}?range=7d`));
    await waitFor(() =>
      expect(Date.now() - Date.parse(lastQuery(api.calls).from ?? '')).toBeLessThan(8 * 24 * 3600_000),
    );
  }, 20_000);

  it('says so when the range holds no mail', async () => {
    stubApi({
      ...signedIn,
      [`GET ${API}`]: () =>
        jsonResponse(
          200,
          buildDashboard({
            totals: { messages: 0, verdict: verdicts, action: actions },
            volume: [],
            top_recipients: [],
            top_senders: [],
            top_sender_domains: [],
            engines: [],
            auth: { spf: { pass: 0, total: 0 }, dkim: { pass: 0, total: 0 }, dmarc: { pass: 0, total: 0 } },
          }),
        ),
    });
    renderRoute(`${PAGE}?range=24h`);
    expect(await screen.findByText('No mail in this range', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});
