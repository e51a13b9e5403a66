import type { AuditEntry } from '@moat/contracts/audit';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const ENTRIES = '/api/v1/audit_log';
const ENTRY: AuditEntry = {
  id: '7',
  created_at: '2026-11-20T10:01:00.000Z',
  actor_type: 'user',
  actor: 'ana@acme.test',
  action: 'user.invite',
  target_type: 'user',
  target_id: 'kim@acme.test',
  ip: '198.51.100.7',
  details: { role: 'user', flags: ['hidden'] },
};

describe('System Logs (/system-settings/system-logs)', () => {
  it('lists who did what to what, when and from where, and filters by action', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      [`GET ${ENTRIES}`]: () => jsonResponse(200, { items: [ENTRY], total: 1 }),
    });
    renderRoute('/system-settings/system-logs');
    const table = await screen.findByRole('table', { name: 'Audit log, scrolls sideways' });
    const row = (await within(table).findByText('user.invite')).closest('tr')!;
    expect(within(row).getByText('ana@acme.test')).toBeInTheDocument();
    expect(within(row).getByText('kim@acme.test')).toBeInTheDocument();
    expect(within(row).getByText('198.51.100.7')).toBeInTheDocument();
    expect(within(row).getByText(/role: user/)).toBeInTheDocument();
    expect(within(row).getByText(/flags: \["hidden"\]/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Export CSV/ })).toBeInTheDocument();

    await user.type(screen.getByRole('textbox', { name: 'Action' }), 'quarantine.{Enter}');
    await waitFor(() => {
      const last = api.calls.filter((c) => c.url.pathname === ENTRIES).at(-1)!;
      expect(last.url.searchParams.get('action')).toBe('quarantine.');
    });
  }, 30_000);

  it('tells a plain user the list holds only their own actions', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'user' })),
      [`GET ${ENTRIES}`]: () => jsonResponse(200, { items: [], total: 0 }),
    });
    renderRoute('/system-settings/system-logs');
    expect(await screen.findByText(/These are your own actions/)).toBeInTheDocument();
    expect(await screen.findByText('No entries')).toBeInTheDocument();
  });
});
