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
    const table = await screen.findByRole('table', { name: 'Audit log' });
    // Every part in words: the action, the kind of target, what changed (never raw JSON).
    const row = (await within(table).findByText('Invited a user')).closest('tr')!;
    expect(within(row).getByText('ana@acme.test')).toBeInTheDocument();
    // The kind of target, and the role given (`user`, said as the users page says it).
    expect(within(row).getAllByText('User')).toHaveLength(2);
    expect(within(row).getByText('kim@acme.test')).toBeInTheDocument();
    expect(within(row).getByText('198.51.100.7')).toBeInTheDocument();
    expect(within(row).getByText('Role')).toBeInTheDocument();
    expect(within(row).getByText('Flags')).toBeInTheDocument();
    expect(within(row).getByText('hidden')).toBeInTheDocument();
    expect(row.textContent).not.toMatch(/[{}[\]"]|user\.invite/);
    expect(screen.getByRole('link', { name: /Export CSV/ })).toBeInTheDocument();

    // The action filter offers the actions by their words.
    await user.selectOptions(screen.getByRole('combobox', { name: 'Action' }), 'Released a held message');
    await waitFor(() => {
      const last = api.calls.filter((c) => c.url.pathname === ENTRIES).at(-1)!;
      expect(last.url.searchParams.get('action')).toBe('quarantine.admin_release');
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

  it('names an actor without an address by its kind, and hides a record id', async () => {
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      [`GET ${ENTRIES}`]: () =>
        jsonResponse(200, {
          items: [
            {
              ...ENTRY,
              actor_type: 'cli',
              actor: 'cli',
              action: 'quarantine.purge',
              target_type: 'quarantine_message',
              target_id: '0b6c2a52-8b1d-4f7e-9a0e-3c4d5e6f7a8b',
              details: { reason: 'retention_expired', released: false },
            },
          ],
          total: 1,
        }),
    });
    renderRoute('/system-settings/system-logs');
    const table = await screen.findByRole('table', { name: 'Audit log' });
    const row = (await within(table).findByText('Deleted messages past their retention')).closest('tr')!;
    expect(within(row).getByText('Operator command')).toBeInTheDocument();
    expect(within(row).getByText('Held message')).toBeInTheDocument();
    expect(within(row).getByText('retention expired')).toBeInTheDocument();
    expect(within(row).getByText('No')).toBeInTheDocument();
    expect(row.textContent).not.toContain('0b6c2a52');
    expect(row.textContent).not.toMatch(/\bcli\b|_/);
  });
});
