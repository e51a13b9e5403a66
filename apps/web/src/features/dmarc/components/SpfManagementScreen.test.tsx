import type { SpfResponse } from '@moat/contracts/dmarc';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const PAGE = '/dmarc/spf-management';
const API = 'GET /api/v1/dmarc/spf';
const signedIn = { 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) };
const answer = (domains: SpfResponse['domains']): SpfResponse => ({
  limits: { lookups: 10, voidLookups: 2 },
  checkedAt: '2026-01-05T10:00:00.000Z',
  domains,
});

describe('DMARC → SPF Management (/dmarc/spf-management)', () => {
  it('tells an organisation without domains where to add one', async () => {
    stubApi({ ...signedIn, [API]: () => jsonResponse(200, answer([])) });
    renderRoute(PAGE);
    expect(await screen.findByText('No domains to check yet')).toBeInTheDocument();
    expect(
      screen.getByText(/Add your mail domain in Configuration → Settings, under Mail flow/),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open Settings' })).toHaveAttribute(
      'href',
      '/configuration/settings',
    );
  });

  it('shows a domain that could not be checked in words, and looks it up again on "Check again"', async () => {
    const api = stubApi({
      ...signedIn,
      [API]: () =>
        jsonResponse(
          200,
          answer([
            {
              domain: 'acme.test',
              checked: false,
              failure: 'timeout',
              records: [],
              lookups: 0,
              voidLookups: 0,
              complete: true,
              tree: null,
              problems: [],
              corrected: null,
            },
          ]),
        ),
    });
    renderRoute(PAGE);
    const domain = await screen.findByRole('region', { name: 'acme.test' });
    expect(
      within(domain).getByText(/^Could not check acme\.test: the DNS server did not answer in time\./),
    ).toBeInTheDocument();
    const asked = () => api.calls.filter((call) => call.url.pathname === '/api/v1/dmarc/spf').length;
    expect(asked()).toBe(1);
    await userEvent.click(screen.getByRole('button', { name: 'Check again' }));
    await waitFor(() => expect(asked()).toBe(2));
  });
});
