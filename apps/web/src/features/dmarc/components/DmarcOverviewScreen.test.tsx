import type { DmarcOverview, DomainOverview } from '@moat/contracts/dmarc';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { decodeDrillDown, encodeDrillDown } from '../../../lib/drill-down';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/dmarc/overview';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const reverse = {
  'GET /api/v1/dmarc/reverse': () => jsonResponse(200, { names: { '198.51.100.9': 'mta.crm.example' } }),
};

const domain = (over: Partial<DomainOverview> = {}): DomainOverview => ({
  domain: 'acme.test',
  reportAddress: 'dmarc-reports@acme.test',
  published: { status: 'missing', record: null, policy: null, reportsHere: false },
  reportedPolicy: null,
  reports: 0,
  messages: 0,
  passed: 0,
  trend: [],
  topFailing: [],
  ...over,
});
const answer = (domains: DomainOverview[], days = 30): DmarcOverview => ({ days, domains });

describe('DMARC → Overview (/dmarc/overview)', () => {
  it('tells an organisation without domains where to add one', async () => {
    stubApi({ ...signedIn, 'GET /api/v1/dmarc/overview': () => jsonResponse(200, answer([])) });
    renderRoute(PAGE);
    // The first screen of the file loads the charts' code too.
    expect(await screen.findByText('No domains yet', {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/configuration/settings',
    );
  });

  it('gives a domain without a record the exact record to publish, and says reports will come', async () => {
    stubApi({ ...signedIn, 'GET /api/v1/dmarc/overview': () => jsonResponse(200, answer([domain()])) });
    renderRoute(PAGE);
    const card = await screen.findByRole('region', { name: 'acme.test' }, { timeout: 10_000 });
    expect(within(card).getByText('No DMARC record')).toBeInTheDocument();
    expect(within(card).getByText('_dmarc.acme.test')).toBeInTheDocument();
    expect(
      within(card).getByText(
        'v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.test; ruf=mailto:dmarc-reports@acme.test; fo=1',
      ),
    ).toBeInTheDocument();
    expect(
      within(card).getByText(/No reports in this period\. .* dmarc-reports@acme\.test/),
    ).toBeInTheDocument();
  });

  it('shows the pass rate and the failing sources, each a drill-down into the Explorer; the period is chosen', async () => {
    const api = stubApi({
      ...signedIn,
      ...reverse,
      'GET /api/v1/dmarc/overview': (call) =>
        jsonResponse(
          200,
          answer(
            [
              domain({
                published: {
                  status: 'found',
                  record: 'v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@acme.test',
                  policy: 'quarantine',
                  reportsHere: true,
                },
                reports: 12,
                messages: 2000,
                passed: 1900,
                trend: [
                  { day: '2026-11-30', messages: 1000, passed: 950 },
                  { day: '2026-12-01', messages: 1000, passed: 950 },
                ],
                topFailing: [{ sourceIp: '198.51.100.9', messages: 100, reports: 4 }],
              }),
            ],
            Number(call.url.searchParams.get('days')),
          ),
        ),
    });
    renderRoute(PAGE);
    const card = await screen.findByRole('region', { name: 'acme.test' }, { timeout: 10_000 });
    expect(within(card).getByText('Policy: quarantine')).toBeInTheDocument();
    expect(within(card).getByText('95 %')).toBeInTheDocument();
    expect(within(card).getByText('1,900 passed, 100 failed')).toBeInTheDocument();
    expect(await within(card).findByText('mta.crm.example')).toBeInTheDocument();
    const source = within(card).getByRole('link', { name: '198.51.100.9' });
    const href = new URL(source.getAttribute('href') ?? '', 'http://localhost');
    expect(href.pathname).toBe('/dmarc/rua-explorer');
    expect(decodeDrillDown(href.searchParams.get('drillDown'))).toEqual({
      domain: 'acme.test',
      ip: '198.51.100.9',
      dmarc: 'fail',
      dateRange: 'month',
    });
    await userEvent.click(screen.getByRole('radio', { name: '1 year' }));
    await waitFor(() =>
      expect(
        api.calls.some(
          (c) => c.url.pathname.endsWith('/overview') && c.url.searchParams.get('days') === '365',
        ),
      ).toBe(true),
    );
  });

  it('opens on the drill-down period and domain', async () => {
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/dmarc/overview': () =>
        jsonResponse(
          200,
          answer([domain(), domain({ domain: 'other.test', reportAddress: 'dmarc-reports@other.test' })], 7),
        ),
    });
    renderRoute(
      `${PAGE}?drillDown=${encodeURIComponent(encodeDrillDown({ dateRange: 'week', domain: 'other.test' }))}`,
    );
    expect(await screen.findByRole('region', { name: 'other.test' })).toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'acme.test' })).toBeNull();
    expect(api.calls.find((c) => c.url.pathname.endsWith('/overview'))?.url.searchParams.get('days')).toBe(
      '7',
    );
  });
});
