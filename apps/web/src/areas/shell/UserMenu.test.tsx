import { CURRENT_USER_POLL_INTERVAL_MS } from '@moat/contracts/constants';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../test/render-route';

afterEach(() => vi.useRealTimers());

const userCalls = (api: ReturnType<typeof stubApi>) =>
  api.calls.filter((call) => call.url.pathname === '/api/v1/current_user').length;

describe('signed-in shell: user menu and current-user polling', () => {
  it('re-polls the current user every 225 s, and Logout ends the session, clears the cache and stops polling', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    let role: 'admin' | 'user' = 'admin';
    const api = stubApi({
      'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser({ role })),
      'POST /api/v1/auth/logout': () => jsonResponse(200, { success: true }),
    });
    const app = renderRoute('/dashboard');
    await screen.findByRole('heading', { level: 1, name: 'Overview' });
    expect(screen.getByText('admin')).toBeInTheDocument();
    const before = userCalls(api);

    role = 'user';
    await act(() => vi.advanceTimersByTimeAsync(CURRENT_USER_POLL_INTERVAL_MS - 1_000));
    expect(userCalls(api)).toBe(before);
    await act(() => vi.advanceTimersByTimeAsync(1_000));
    await waitFor(() => expect(userCalls(api)).toBe(before + 1));
    await waitFor(() => expect(screen.queryByText('admin')).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'User menu of ada@example.com' }));
    await user.click(await screen.findByRole('menuitem', { name: 'Logout' }));
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    expect(app.location()).toBe('/auth/login');
    expect(api.calls.filter((call) => call.url.pathname === '/api/v1/auth/logout')).toHaveLength(1);
    expect(app.queryClient.getQueryCache().findAll({ queryKey: ['current-user'] })).toEqual([]);

    const afterLogout = userCalls(api);
    await act(() => vi.advanceTimersByTimeAsync(3 * CURRENT_USER_POLL_INTERVAL_MS));
    expect(userCalls(api)).toBe(afterLogout);
  });
});
