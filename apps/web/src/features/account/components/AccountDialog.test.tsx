import type { OwnSession } from '@moat/contracts/current-user';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { buildDeployment, consoleHandlers } from '../../../test/console-status-fixtures';
import {
  buildCurrentUser,
  errorResponse,
  jsonResponse,
  renderRoute,
  stubApi,
} from '../../../test/render-route';
import { browserOf } from './AccountDialog';

const SESSIONS: OwnSession[] = [
  {
    id: '11',
    ip: '198.51.100.1',
    user_agent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/120.0 Safari/537.36',
    created_at: '2026-11-27T08:00:00.000Z',
    last_seen_at: '2026-11-27T09:00:00.000Z',
    current: true,
  },
  {
    id: '12',
    ip: '203.0.113.5',
    user_agent: 'Mozilla/5.0 (Windows NT 10.0; rv:120.0) Gecko/20100101 Firefox/120.0',
    created_at: '2026-11-26T08:00:00.000Z',
    last_seen_at: '2026-11-26T09:00:00.000Z',
    current: false,
  },
];

function accountApi(options: { mfaRequired?: boolean } = {}) {
  let sessions = [...SESSIONS];
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
    ...consoleHandlers({ enableMFA: true }, buildDeployment({ is_msp: false })),
    'POST /api/v1/mfa/setup': () =>
      jsonResponse(200, {
        mfaWasSet: false,
        isMfaEnabled: false,
        isVerified: false,
        mfaRequired: options.mfaRequired ?? false,
      }),
    'GET /api/v1/current_user/sessions': () => jsonResponse(200, { sessions }),
    'DELETE /api/v1/current_user/sessions/12': () => {
      sessions = sessions.filter((s) => s.id !== '12');
      return jsonResponse(200, { ended: 1 });
    },
    'POST /api/v1/current_user/password': (call) => {
      const body = call.body as { current_password: string };
      if (body.current_password !== 'old password 1') {
        return errorResponse(401, 'invalid_credentials', 'The password is not correct');
      }
      sessions = sessions.filter((s) => s.current);
      return jsonResponse(200, { success: true });
    },
  });
}

async function openAccount() {
  renderRoute('/dashboard');
  await userEvent.click(await screen.findByRole('button', { name: 'User menu of ada@example.com' }));
  await userEvent.click(await screen.findByRole('menuitem', { name: 'My account' }));
  return screen.findByRole('dialog', { name: 'My account' });
}

describe('My account (user menu)', () => {
  it('changes the password with the current one, saying a wrong one inline, and the other sessions go', async () => {
    const user = userEvent.setup();
    const api = accountApi();
    const dialog = await openAccount();
    expect(await within(dialog).findByText('Firefox, Windows')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText(/Current password/), 'wrong password');
    await user.type(within(dialog).getByLabelText(/^New password\s*\*?$/), 'new password 22');
    await user.type(within(dialog).getByLabelText(/New password again/), 'new password 22');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(await within(dialog).findByText('This is not your current password')).toBeInTheDocument();
    // One error, said once: no dialog over it.
    expect(screen.getAllByRole('dialog')).toHaveLength(1);

    await user.clear(within(dialog).getByLabelText(/Current password/));
    await user.type(within(dialog).getByLabelText(/Current password/), 'old password 1');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(await within(dialog).findByText(/Your password is changed/)).toBeInTheDocument();
    await waitFor(() => expect(within(dialog).queryByText('Firefox, Windows')).not.toBeInTheDocument());
    const bodies = api.calls
      .filter((c) => c.url.pathname === '/api/v1/current_user/password')
      .map((c) => c.body);
    expect(bodies.at(-1)).toEqual({
      current_password: 'old password 1',
      new_password: 'new password 22',
      confirm_password: 'new password 22',
    });
  }, 30_000);

  it('checks the new password before sending it', async () => {
    const user = userEvent.setup();
    const api = accountApi();
    const dialog = await openAccount();
    await user.type(within(dialog).getByLabelText(/Current password/), 'old password 1');
    await user.type(within(dialog).getByLabelText(/^New password\s*\*?$/), 'short');
    await user.type(within(dialog).getByLabelText(/New password again/), 'shorter');
    await user.click(within(dialog).getByRole('button', { name: 'Change password' }));
    expect(within(dialog).getByText('Use at least 8 characters')).toBeInTheDocument();
    expect(within(dialog).getByText('The two new passwords differ')).toBeInTheDocument();
    expect(api.calls.some((c) => c.url.pathname === '/api/v1/current_user/password')).toBe(false);
  }, 30_000);

  it('ends another session, marks this one, and says when MFA is required by the admin', async () => {
    const user = userEvent.setup();
    accountApi({ mfaRequired: true });
    const dialog = await openAccount();
    expect(await within(dialog).findByText('This session')).toBeInTheDocument();
    await user.click(
      within(dialog).getByRole('button', { name: 'End the session of Firefox, Windows at 203.0.113.5' }),
    );
    await waitFor(() => expect(within(dialog).queryByText('Firefox, Windows')).not.toBeInTheDocument());
    expect(within(dialog).getByRole('button', { name: 'End all other sessions' })).toBeDisabled();
    expect(await within(dialog).findByText(/Your administrator requires it/)).toBeInTheDocument();
  }, 30_000);
});

describe('browserOf', () => {
  it('names common browsers and systems, and keeps an unknown agent short', () => {
    expect(browserOf(SESSIONS[0]!.user_agent)).toBe('Chrome, Linux');
    expect(
      browserOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605 Version/17 Safari/605'),
    ).toBe('Safari, macOS');
    expect(browserOf('curl/8.0')).toBe('curl/8.0');
    expect(browserOf(null)).toBe('');
  });
});
