import type { AppsResponse } from '@moat/contracts/console';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const APPS = '/api/v1/apps';

function tenantApps(initial: AppsResponse) {
  let stored = initial;
  return {
    [`GET ${APPS}`]: () => jsonResponse(200, stored),
    [`PUT ${APPS}`]: (call: { body: unknown }) => {
      const body = call.body as { apps?: AppsResponse['apps']; tools?: AppsResponse['tools'] };
      const merge = <T extends { name: string }>(list: T[], changes: T[] = []) => [
        ...list.filter((e) => !changes.some((c) => c.name === e.name)),
        ...changes,
      ];
      stored = { apps: merge(stored.apps, body.apps), tools: merge(stored.tools, body.tools) };
      return jsonResponse(200, stored);
    },
  };
}

describe('SaaS Applications (/configuration/cloud-apps)', () => {
  it('lets an admin turn SMTP mail off and on, and names the apps this edition lacks', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      ...tenantApps({ apps: [{ name: 'smtp_emails', state: 'enabled' }], tools: [] }),
    });
    renderRoute('/configuration/cloud-apps');
    const card = await screen.findByRole('region', { name: 'SMTP mail' });
    expect(within(card).getByText('On')).toBeInTheDocument();
    const toggle = within(card).getByRole('switch', { name: 'SMTP mail on' });
    expect(toggle).toBeChecked();
    await user.click(toggle);
    expect(await within(card).findByText('Off')).toBeInTheDocument();
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.body)).toEqual([
      { apps: [{ name: 'smtp_emails', state: 'disabled' }] },
    ]);
    const other = screen.getByRole('region', { name: 'Not available in this edition' });
    expect(within(other).getByText(/Microsoft 365 Mail · Gmail/)).toBeInTheDocument();
    expect(screen.queryByText(/not available in this edition/)).not.toBeInTheDocument();
  });
});

describe('Security Engines (/configuration/app-store)', () => {
  it("shows each engine's state on this server, and no switch to a plain user", async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      ...tenantApps({
        apps: [],
        tools: [
          { name: 'anti_malware', state: 'enabled' },
          { name: 'anti_spam', state: 'disabled' },
        ],
      }),
      'GET /api/v1/environment_components': () =>
        jsonResponse(200, {
          services: [],
          engines: [
            { name: 'anti_malware', version: '1.0.0', status: 'on' },
            { name: 'moat_spam', version: 'Bayes + rules', status: 'off', detail: 'RSPAMD_URL is not set' },
          ],
        }),
    });
    renderRoute('/configuration/app-store');
    const malware = await screen.findByRole('region', { name: 'Anti-Malware' });
    expect(await within(malware).findByText('Running on this server (version 1.0.0).')).toBeInTheDocument();
    const spam = screen.getByRole('region', { name: 'Anti-Spam' });
    expect(within(spam).getByText('Off')).toBeInTheDocument();
    expect(within(spam).getByText('Not running on this server: RSPAMD_URL is not set.')).toBeInTheDocument();
    expect(screen.queryByRole('switch')).not.toBeInTheDocument();
    expect(screen.getAllByText('Only an admin can turn this on or off.')).toHaveLength(4);
  });
});
