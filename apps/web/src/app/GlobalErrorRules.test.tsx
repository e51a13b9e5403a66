import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { apiGet, apiPost } from '../lib/http';
import { queryKeys } from '../lib/query-keys';
import { buildCurrentUser, errorResponse, jsonResponse, renderRoute, stubApi } from '../test/render-route';

/** A call from anywhere in the app that fails; the caller still gets the error. */
async function failingCall(path: string, post = false) {
  await act(async () => {
    await (post ? apiPost(path, {}) : apiGet(path)).then(
      () => {
        throw new Error('expected the call to fail');
      },
      () => undefined,
    );
  });
}

async function onDashboard(handlers: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()),
    ...handlers,
  });
  const app = renderRoute('/dashboard?range=week');
  await screen.findByRole('heading', { level: 1, name: 'Overview' });
  return { api, app };
}

describe('global error rules in the app', () => {
  it('403 not authenticated: forgets the user and goes to login with the error and the user, which records the logout reason', async () => {
    const { api, app } = await onDashboard({
      'GET /api/v1/widgets': () => errorResponse(403, 'forbidden', 'not authenticated'),
      'POST /api/v1/auth/logout_reason': () => jsonResponse(200, { success: true }),
    });
    await failingCall('/api/v1/widgets');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(app.location()).toBe(`/auth/login?returnUrl=${encodeURIComponent('/dashboard?range=week')}`);
    expect(app.router.state.location.state).toEqual({ error: 'not authenticated', user: 'ada@example.com' });
    expect(app.queryClient.getQueryData(queryKeys.currentUser())).toBeUndefined();
    expect(screen.getByLabelText(/Email/)).toHaveValue('ada@example.com');
    expect(screen.getByRole('status')).toHaveTextContent('Your session has ended. Sign in again.');
    await waitFor(() =>
      expect(api.calls.filter((call) => call.url.pathname === '/api/v1/auth/logout_reason')).toHaveLength(1),
    );
    expect(api.calls.find((call) => call.url.pathname === '/api/v1/auth/logout_reason')?.body).toEqual({
      reason: 'not authenticated',
    });
  });

  it('403 not authenticated from a licences URL changes nothing', async () => {
    const { app } = await onDashboard({
      'GET /api/v1/licenses/seats': () => errorResponse(403, 'forbidden', 'not authenticated'),
    });
    await failingCall('/api/v1/licenses/seats');
    expect(app.location()).toBe('/dashboard?range=week');
    expect(app.queryClient.getQueryData(queryKeys.currentUser())).toBeDefined();
  });

  it('403 not authenticated on a sign-in page does not navigate', async () => {
    stubApi({ 'GET /api/v1/x': () => errorResponse(403, 'forbidden', 'not authenticated') });
    const app = renderRoute('/auth/forgot-password');
    await screen.findByRole('heading', { name: 'Reset your password' });
    await failingCall('/api/v1/x');
    expect(app.location()).toBe('/auth/forgot-password');
  });

  it('400 token mismatch: signs out to login, but not on the reset-password page', async () => {
    const { app } = await onDashboard({
      'POST /api/v1/x': () => errorResponse(400, 'bad_request', 'CSRF token mismatch'),
    });
    await failingCall('/api/v1/x', true);
    await waitFor(() => expect(app.location()).toMatch(/^\/auth\/login\?returnUrl=/));
    expect(app.queryClient.getQueryData(queryKeys.currentUser())).toBeUndefined();

    stubApi({ 'POST /api/v1/x': () => errorResponse(400, 'bad_request', 'CSRF token mismatch') });
    const reset = renderRoute('/auth/reset-password?token=t');
    await screen.findAllByRole('heading', { name: 'Choose a new password' });
    await failingCall('/api/v1/x', true);
    expect(reset.location()).toBe('/auth/reset-password?token=t');
  });

  it('400 trial expired: a 700 px modal that cannot be closed', async () => {
    await onDashboard({
      'GET /api/v1/x': () => errorResponse(400, 'trial_expired', 'Expiration error, trial has expired'),
    });
    await failingCall('/api/v1/x');
    const dialog = await screen.findByRole('dialog', { name: 'Your trial has expired' });
    expect(dialog).toHaveTextContent('The trial period of this portal has ended.');
    expect(within(dialog).queryAllByRole('button')).toEqual([]);
    // Mantine writes 700 px as rem (16 px each).
    expect(dialog.closest('[style*="--modal-size"]')?.getAttribute('style')).toContain(
      `--modal-size: calc(${700 / 16}rem`,
    );
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Your trial has expired' })).toBeInTheDocument();
  });

  it('403 insufficient privileges: the permission-error dialog, silent on the login page', async () => {
    await onDashboard({
      'GET /api/v1/x': () => errorResponse(403, 'insufficient_privileges', 'Insufficient privileges'),
    });
    await failingCall('/api/v1/x');
    const dialog = await screen.findByRole('dialog', { name: 'Permission error' });
    expect(dialog).toHaveTextContent('You do not have the privileges for this action.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'OK' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('403 insufficient privileges stays silent on the login page', async () => {
    stubApi({
      'GET /api/v1/x': () => errorResponse(403, 'insufficient_privileges', 'Insufficient privileges'),
    });
    renderRoute('/auth/login');
    await screen.findByRole('heading', { name: 'Sign in' });
    await failingCall('/api/v1/x');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('403 login_reason_required: the login-reason dialog, which posts the reason and lets the console go on', async () => {
    let reasonGiven = false;
    const { api } = await onDashboard({
      'GET /api/v1/x': () =>
        reasonGiven
          ? jsonResponse(200, {})
          : errorResponse(403, 'login_reason_required', 'Give the reason for this sign-in first'),
      'POST /api/v1/auth/login_reason': () => {
        reasonGiven = true;
        return jsonResponse(200, { success: true });
      },
    });
    await failingCall('/api/v1/x');
    const dialog = await screen.findByRole('dialog', { name: 'Reason for signing in' });
    await userEvent.type(within(dialog).getByLabelText(/Login reason/), 'Ticket 99');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.calls.find((call) => call.url.pathname === '/api/v1/auth/login_reason')?.body).toEqual({
      loginReason: 'Ticket 99',
    });
  });

  it('other errors only reach the caller', async () => {
    const { app } = await onDashboard({ 'GET /api/v1/x': () => errorResponse(409, 'conflict', 'changed') });
    await failingCall('/api/v1/x');
    expect(app.location()).toBe('/dashboard?range=week');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
