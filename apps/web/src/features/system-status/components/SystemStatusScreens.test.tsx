import type { ServiceStatus, SystemTasks } from '@moat/contracts/console';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildDeployment, consoleHandlers } from '../../../test/console-status-fixtures';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../../test/render-route';

const queues = {
  inbound_waiting: 3,
  inbound_failed: 1,
  outbox_waiting: 2,
  outbox_failed_24h: 0,
  oldest_waiting_at: '2026-11-27T08:00:00.000Z',
};

describe('Service Status (/system-settings/service-status)', () => {
  it('shows components with why one is off, queue depths, the relay and its last error', async () => {
    const status: ServiceStatus = {
      services: [
        { name: 'Outbound mail relay', version: 'SMTP', status: 'off', detail: 'SMTP_RELAY_URL is not set' },
      ],
      engines: [{ name: 'anti_malware', version: '1.0.0', status: 'on' }],
      incidents: [],
      queues,
      relay: { configured: false, last_error: '421 try later', last_error_at: '2026-11-27T09:00:00.000Z' },
    };
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      'GET /api/v1/service_status': () => jsonResponse(200, status),
    });
    renderRoute('/system-settings/service-status');
    const table = await screen.findByRole('table', { name: 'Components' });
    const relay = within(table).getByText('Outbound mail relay').closest('tr')!;
    expect(within(relay).getByText('Off')).toBeInTheDocument();
    expect(within(relay).getByText('SMTP_RELAY_URL is not set')).toBeInTheDocument();
    expect(screen.getByText('Received mail that could not be processed').nextSibling).toHaveTextContent('1');
    expect(screen.getByText('No open incident: everything runs as it should.')).toBeInTheDocument();
    expect(screen.getByText('421 try later')).toBeInTheDocument();
  });
});

describe('System Tasks (/system-settings/system-tasks)', () => {
  it('lists each background task with its latest run and its failures', async () => {
    const tasks: SystemTasks = {
      tasks: [
        {
          name: 'digest',
          every_minutes: 60,
          running: false,
          last_run: {
            node: 'node-a',
            started_at: '2026-11-27T08:00:00.000Z',
            finished_at: '2026-11-27T08:00:01.000Z',
            outcome: 'failed',
            detail: 'relay down',
          },
          runs_24h: 3,
          failures_24h: 1,
        },
        { name: 'counters', every_minutes: 10, running: false, last_run: null, runs_24h: 0, failures_24h: 0 },
      ],
      queues,
    };
    stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      ...consoleHandlers({ enableSystemTask: true }, buildDeployment()),
      'GET /api/v1/system_tasks': () => jsonResponse(200, tasks),
    });
    renderRoute('/system-settings/system-tasks');
    const row = (await screen.findByText('Quarantine digests')).closest('tr')!;
    expect(within(row).getByText('Failed')).toBeInTheDocument();
    expect(within(row).getByText('relay down')).toBeInTheDocument();
    expect(within(row).getByText('1 failed')).toBeInTheDocument();
    expect(
      within(screen.getByText('Clear expired rate-limit counters').closest('tr')!).getByText('Not run yet'),
    ).toBeInTheDocument();
  });
});

describe('Licenses (/system-settings/license-configuration)', () => {
  it('shows the licence state, dates and seats, and sends the contact request', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role: 'admin' })),
      ...consoleHandlers({}, buildDeployment()),
      'GET /api/v1/licence_seats': () =>
        jsonResponse(200, { data: [{ saas: 'smtp_emails', security_tool: null, seats: 250 }] }),
      'POST /api/v1/licence_contact': () => jsonResponse(200, { success: true, info: 'sent' }),
    });
    renderRoute('/system-settings/license-configuration');
    expect(await screen.findByText('Active')).toBeInTheDocument();
    const seats = screen.getByRole('table', { name: 'Licence seats' });
    expect(within(seats).getByText('SMTP mail')).toBeInTheDocument();
    expect(within(seats).getByText('250')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Contact us' }));
    expect(await screen.findByText('Thank you for reaching out')).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'POST' && c.url.pathname === '/api/v1/licence_contact')).toBe(
      true,
    );
  }, 30_000);
});
