import type { Overview } from '@moat/contracts/console';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { stubShell } from '../../../areas/shell/shell-fixtures';
import { errorResponse, jsonResponse, renderRoute } from '../../../test/render-route';

const OVERVIEW: Overview = {
  quarantined: 12,
  pending_requests: 3,
  restored_30d: 1250,
  mail_30d: {
    from: '2025-12-03T09:30:00.000Z',
    to: '2026-01-02T09:30:00.000Z',
    messages: 400,
    not_clean: 40,
    verdict: { clean: 360, phishing: 20, malware: 5, spam: 10, suspicious: 5 },
    held: 25,
    delivered_banner: 10,
    attachments_removed: 5,
  },
  recent_events: [
    {
      id: 'e1',
      verdict: 'phishing',
      subject: 'Reset your password',
      recipient: 'ada@example.com',
      detected_at: '2026-01-02T09:30:00Z',
    },
  ],
};

describe('overview dashboard (/dashboard)', () => {
  it('offers a plain user no link to the admins’ pages, only the counts and their mail', async () => {
    stubShell({
      user: { role: 'user' },
      handlers: { 'GET /api/v1/dashboard/overview': () => jsonResponse(200, OVERVIEW) },
    });
    renderRoute('/dashboard');
    const quarantined = await screen.findByRole('region', { name: 'In quarantine now' });
    expect(within(quarantined).getByText('12')).toBeInTheDocument();
    expect(within(quarantined).queryByRole('link')).not.toBeInTheDocument();
    const pending = screen.getByRole('region', { name: 'Restore requests waiting' });
    expect(within(pending).queryByRole('link')).not.toBeInTheDocument();
  });

  it('shows the counts as cards that lead to their pages, and the newest events', async () => {
    stubShell({ handlers: { 'GET /api/v1/dashboard/overview': () => jsonResponse(200, OVERVIEW) } });
    renderRoute('/dashboard');
    const quarantined = await screen.findByRole('region', { name: 'In quarantine now' });
    expect(within(quarantined).getByText('12')).toBeInTheDocument();
    expect(
      within(quarantined).getByText('Held messages not yet released or deleted, whatever their age.'),
    ).toBeInTheDocument();
    expect(within(quarantined).getByRole('link', { name: 'Open Quarantined Items' })).toHaveAttribute(
      'href',
      '/user-interaction/quarantine-item',
    );
    const pending = screen.getByRole('region', { name: 'Restore requests waiting' });
    expect(within(pending).getByText('3')).toBeInTheDocument();
    expect(within(pending).getByRole('link', { name: 'Open Restore Requests' })).toHaveAttribute(
      'href',
      '/user-interaction/restore-request-and-clean-attachments',
    );
    expect(
      within(screen.getByRole('region', { name: 'Restored in the last 30 days' })).getByText('1,250'),
    ).toBeInTheDocument();
    // The mail of 30 days, as the Analytics dashboard counts it, each figure saying what it counts.
    const notClean = screen.getByRole('region', { name: 'Not clean' });
    expect(within(notClean).getByText('40')).toBeInTheDocument();
    expect(
      within(notClean).getByText(
        'Received in the last 30 days and judged phishing, malware, spam or suspicious.',
      ),
    ).toBeInTheDocument();
    // Each count opens Mail Explorer filtered to it, over the same 30 days.
    expect(within(notClean).getByRole('link', { name: 'Phishing: 20' })).toHaveAttribute(
      'href',
      '/mail-explorer?verdict=phishing&range=30d',
    );
    expect(
      within(screen.getByRole('region', { name: 'Held on arrival' })).getByText('25'),
    ).toBeInTheDocument();
    const banner = screen.getByRole('region', { name: 'Delivered with a banner' });
    expect(within(banner).getByText('10')).toBeInTheDocument();
    expect(within(banner).getByRole('link', { name: 'Open Mail Explorer' })).toHaveAttribute(
      'href',
      '/mail-explorer?action=delivered_banner&range=30d',
    );

    const recent = screen.getByRole('region', { name: 'Recent events' });
    expect(within(recent).getByRole('cell', { name: 'Reset your password' })).toBeInTheDocument();
    expect(within(recent).getByRole('link', { name: 'Reset your password' })).toHaveAttribute(
      'href',
      `/security-events/${OVERVIEW.recent_events[0]!.id}`,
    );
    expect(within(recent).getByRole('cell', { name: 'Phishing' })).toBeInTheDocument();
  });

  it('says so while loading, and offers to try again when the call fails', async () => {
    let fail = true;
    stubShell({
      handlers: {
        'GET /api/v1/dashboard/overview': () =>
          fail ? errorResponse(500, 'internal_error', 'boom') : jsonResponse(200, OVERVIEW),
      },
    });
    renderRoute('/dashboard');
    expect(await screen.findByText('Loading the overview')).toBeInTheDocument();
    expect(await screen.findByText('The overview could not be loaded.')).toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('region', { name: 'In quarantine now' })).toBeInTheDocument();
  });

  it('says when there were no events', async () => {
    stubShell({
      handlers: {
        'GET /api/v1/dashboard/overview': () => jsonResponse(200, { ...OVERVIEW, recent_events: [] }),
      },
    });
    renderRoute('/dashboard');
    expect(await screen.findByText('No events in the last 30 days.')).toBeInTheDocument();
  });
});
