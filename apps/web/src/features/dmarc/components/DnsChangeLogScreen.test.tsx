import type { DmarcAlertsResponse, DnsChangesResponse } from '@moat/contracts/dmarc';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { encodeDrillDown } from '../../../lib/drill-down';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/dmarc/spf-dmarc-changes';
const API = 'GET /api/v1/dmarc/dns-changes';
const ALERTS = 'GET /api/v1/dmarc/alerts';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const noAlerts: DmarcAlertsResponse = { email: true, items: [] };

const record = (
  over: Partial<DnsChangesResponse['records'][number]>,
): DnsChangesResponse['records'][number] => ({
  domain: 'acme.test',
  kind: 'spf',
  name: 'acme.test',
  selector: null,
  value: 'v=spf1 -all',
  known: true,
  firstSeenAt: '2026-01-01T10:00:00.000Z',
  checkedAt: '2026-01-05T10:00:00.000Z',
  changedAt: null,
  failure: null,
  failedAt: null,
  ...over,
});

const withData: DnsChangesResponse = {
  pollMinutes: 60,
  polledAt: '2026-01-05T10:00:00.000Z',
  domains: ['acme.test'],
  records: [
    record({}),
    record({
      kind: 'dmarc',
      name: '_dmarc.acme.test',
      value: 'v=DMARC1; p=reject',
      changedAt: '2026-01-05T10:00:00.000Z',
    }),
    record({
      kind: 'dkim',
      name: 's1._domainkey.acme.test',
      selector: 's1',
      value: 'v=DKIM1; p=MIIB',
      failure: 'timeout',
      failedAt: '2026-01-05T10:00:00.000Z',
    }),
  ],
  changes: {
    total: 2,
    items: [
      {
        id: 'c2',
        domain: 'acme.test',
        kind: 'dmarc',
        name: '_dmarc.acme.test',
        selector: null,
        before: 'v=DMARC1; p=none',
        after: 'v=DMARC1; p=reject',
        first: false,
        observedAt: '2026-01-05T10:00:00.000Z',
      },
      {
        id: 'c1',
        domain: 'acme.test',
        kind: 'spf',
        name: 'acme.test',
        selector: null,
        before: null,
        after: 'v=spf1 -all',
        first: true,
        observedAt: '2026-01-01T10:00:00.000Z',
      },
    ],
  },
};

describe('DMARC → DNS Change-Log (/dmarc/spf-dmarc-changes)', () => {
  it('tells an organisation without domains how often records are read and where to add a domain', async () => {
    stubApi({
      ...signedIn,
      [API]: () =>
        jsonResponse(200, {
          ...withData,
          polledAt: null,
          domains: [],
          records: [],
          changes: { total: 0, items: [] },
        }),
      [ALERTS]: () => jsonResponse(200, noAlerts),
    });
    renderRoute(PAGE);
    expect(await screen.findByText('No domains to watch yet')).toBeInTheDocument();
    expect(screen.getByText(/Its DNS records are then read every 60 minutes/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/configuration/settings',
    );
    expect(screen.getByRole('button', { name: 'Check now' })).toBeDisabled();
  });

  it('shows the current records, the changes as before and after, and the alerts; reads the period from the drill-down', async () => {
    const api = stubApi({
      ...signedIn,
      [API]: () => jsonResponse(200, withData),
      [ALERTS]: () =>
        jsonResponse(200, {
          email: true,
          items: [
            {
              id: 'a1',
              kind: 'dmarc_record_changed',
              domain: 'acme.test',
              raisedAt: '2026-01-05T10:00:00.000Z',
              emailed: true,
              record: {
                kind: 'dmarc',
                name: '_dmarc.acme.test',
                before: 'v=DMARC1; p=none',
                after: 'v=DMARC1; p=reject',
              },
              source: null,
              passRate: null,
            },
            {
              id: 'a2',
              kind: 'dmarc_new_failing_source',
              domain: 'acme.test',
              raisedAt: '2026-01-04T10:00:00.000Z',
              emailed: false,
              record: null,
              source: { ip: '198.51.100.77', failed: 40, messages: 40 },
              passRate: null,
            },
          ],
        } satisfies DmarcAlertsResponse),
    });
    renderRoute(`${PAGE}?drillDown=${encodeURIComponent(encodeDrillDown({ dateRange: 'week' }))}`);
    const current = await screen.findByRole('region', { name: 'Current records' });
    const dkim = within(current).getByRole('article', { name: 'DKIM key s1' });
    expect(within(dkim).getByText('Last check failed')).toBeInTheDocument();
    expect(
      within(dkim).getByText(/the DNS server did not answer in time\. The value shown is the last one read/),
    ).toBeInTheDocument();
    expect(within(current).getByRole('article', { name: 'DMARC record' })).toHaveTextContent(
      'v=DMARC1; p=reject',
    );
    const log = screen.getByRole('region', { name: 'Change log' });
    expect(within(log).getByText('v=DMARC1; p=none')).toBeInTheDocument();
    expect(within(log).getByText('First read')).toBeInTheDocument();
    expect(
      api.calls.find((c) => c.url.pathname === '/api/v1/dmarc/dns-changes')?.url.searchParams.get('days'),
    ).toBe('7');
    const alerts = screen.getByRole('region', { name: 'DMARC alerts' });
    expect(await within(alerts).findByText('The DMARC record of acme.test changed.')).toBeInTheDocument();
    expect(
      within(alerts).getByText(
        /198\.51\.100\.77 sent 40 messages as acme\.test in the last 7 days, and 40 failed DMARC/,
      ),
    ).toBeInTheDocument();
    expect(within(alerts).getByText(/Not emailed/)).toBeInTheDocument();
  });

  it('checks now, says what changed, and shows the reason when checked moments ago', async () => {
    let checks = 0;
    const api = stubApi({
      ...signedIn,
      [API]: () => jsonResponse(200, withData),
      [ALERTS]: () => jsonResponse(200, noAlerts),
      'POST /api/v1/dmarc/dns-changes/check': () =>
        ++checks === 1
          ? jsonResponse(200, { polledAt: '2026-01-05T10:01:00.000Z', domains: 1, changed: 1, failed: 0 })
          : jsonResponse(429, {
              statusCode: 429,
              code: 'rate_limited',
              message: 'The records were checked moments ago: check again in 25 s',
              details: null,
              reqId: 'r1',
            }),
      'PUT /api/v1/dmarc/alerts/settings': (call) => jsonResponse(200, call.body),
    });
    renderRoute(PAGE);
    const button = await screen.findByRole('button', { name: 'Check now' });
    await userEvent.click(button);
    expect(await screen.findByText(/Checked 1 domain\. 1 record changed/)).toBeInTheDocument();
    await waitFor(() =>
      expect(api.calls.filter((c) => c.url.pathname === '/api/v1/dmarc/dns-changes').length).toBeGreaterThan(
        1,
      ),
    );
    await userEvent.click(button);
    expect(
      await screen.findByText('The records were checked moments ago: check again in 25 s'),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('switch', { name: 'Email these alerts to the admins' }));
    await waitFor(() => expect(api.calls.find((c) => c.method === 'PUT')?.body).toEqual({ email: false }));
  });
});
