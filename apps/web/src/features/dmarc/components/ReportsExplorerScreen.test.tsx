import type { RecordsResponse } from '@moat/contracts/dmarc';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { decodeDrillDown, encodeDrillDown } from '../../../lib/drill-down';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const records: RecordsResponse = {
  total: 1,
  messages: 3,
  passed: 0,
  items: [
    {
      id: 'r1',
      reportId: '7f1c1a52-6a3f-4b59-9d55-1a1f3e1d2c11',
      orgName: 'google.com',
      domain: 'acme.test',
      begin: '2026-11-30T00:00:00.000Z',
      end: '2026-11-30T23:59:59.000Z',
      sourceIp: '198.51.100.9',
      count: 3,
      disposition: 'none',
      dkim: 'fail',
      spf: 'fail',
      dmarc: 'fail',
      headerFrom: 'acme.test',
      envelopeFrom: 'crm.example',
      dkimResults: [{ domain: 'crm.example', selector: 'k1', result: 'pass' }],
      spfResults: [],
    },
  ],
};

describe('DMARC → Reports Explorer drill-down', () => {
  it('opens on the drill-down filter, shows each source with its reverse name, and keeps the filter in the address', async () => {
    const api = stubApi({
      ...signedIn,
      'GET /api/v1/dmarc/records': () => jsonResponse(200, records),
      'GET /api/v1/dmarc/intake': () => jsonResponse(200, { total: 0, items: [] }),
      'GET /api/v1/dmarc/reverse': () => jsonResponse(200, { names: { '198.51.100.9': 'mta.crm.example' } }),
    });
    const drill = encodeDrillDown({
      domain: 'acme.test',
      ip: '198.51.100.9',
      dmarc: 'fail',
      dateRange: 'month',
    });
    const { router } = renderRoute(`/dmarc/rua-explorer?drillDown=${encodeURIComponent(drill)}`);
    expect((await screen.findAllByText('mta.crm.example', {}, { timeout: 10_000 })).length).toBeGreaterThan(
      0,
    );
    const asked = api.calls.find((c) => c.url.pathname === '/api/v1/dmarc/records')!.url.searchParams;
    expect(asked.get('domain')).toBe('acme.test');
    expect(asked.get('ip')).toBe('198.51.100.9');
    expect(asked.get('dmarc')).toBe('fail');
    const from = Date.parse(asked.get('from') ?? '');
    expect(Math.abs(Date.now() - 30 * 86_400_000 - from)).toBeLessThan(60_000);
    expect(screen.getByLabelText('Domain')).toHaveValue('acme.test');

    const box = screen.getByLabelText('Domain');
    await userEvent.clear(box);
    await userEvent.type(box, 'Other.TEST');
    await userEvent.click(screen.getByRole('button', { name: 'Show' }));
    await waitFor(() =>
      expect(decodeDrillDown(new URLSearchParams(router.state.location.search).get('drillDown'))).toEqual({
        domain: 'other.test',
        ip: '198.51.100.9',
        dmarc: 'fail',
        dateRange: 'month',
      }),
    );
  });
});
