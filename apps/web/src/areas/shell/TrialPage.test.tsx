import { TRIAL_REQUEST_FAILURE_TIMEOUT_MS } from '@moat/contracts/constants';
import type { CurrentUser } from '@moat/contracts/current-user';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildDeployment, buildExpiredTrial, consoleHandlers } from '../../test/console-status-fixtures';
import { buildCurrentUser, jsonResponse, renderRoute, stubApi } from '../../test/render-route';

afterEach(() => vi.useRealTimers());

function trialApi(
  user: Partial<CurrentUser> = {},
  deployment = buildExpiredTrial(),
  extend: () => Response = () => jsonResponse(200, { success: true, info: '' }),
) {
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser(user)),
    ...consoleHandlers({ enableTrialExpiredPage: true }, deployment),
    'POST /api/v1/trial_status': extend,
  });
}

describe('trial page (SPEC §2.4, §4 "Trial extension")', () => {
  it('lets an admin ask for an extension and then says it waits for approval', async () => {
    const user = userEvent.setup();
    const api = trialApi();
    renderRoute('/trial');
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Your trial has expired' }),
    ).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Submit request' }));
    expect(await screen.findByRole('heading', { name: 'Waiting for approval' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Submit request' })).not.toBeInTheDocument();
    expect(api.calls.find((call) => call.url.pathname === '/api/v1/trial_status')?.body).toEqual({
      requester_email_address: 'ada@example.com',
      requester_first_name: 'Ada',
      requester_last_name: 'Lovelace',
    });
  });

  it('shows the waiting state at once when a request is already waiting', async () => {
    trialApi({}, buildExpiredTrial({ waitingForApproval: true }));
    renderRoute('/trial');
    expect(await screen.findByRole('heading', { name: 'Waiting for approval' })).toBeInTheDocument();
  });

  it("shows the server's info in the failure dialog after the 1.5 s timeout", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    trialApi({}, buildExpiredTrial(), () =>
      jsonResponse(200, { success: false, info: 'Already extended twice.' }),
    );
    renderRoute('/trial');
    await user.click(await screen.findByRole('button', { name: 'Submit request' }));
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'Submit request' })).toHaveAttribute('data-loading', 'true'),
    );
    await act(() => vi.advanceTimersByTimeAsync(TRIAL_REQUEST_FAILURE_TIMEOUT_MS - 100));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await act(() => vi.advanceTimersByTimeAsync(100));
    const dialog = await screen.findByRole('dialog', { name: 'Extend submit failed' });
    expect(within(dialog).getByText('Already extended twice.')).toBeInTheDocument();
  });

  it('shows a generic message when the request does not get through', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    trialApi({}, buildExpiredTrial(), () => {
      throw new TypeError('Failed to fetch');
    });
    renderRoute('/trial');
    await user.click(await screen.findByRole('button', { name: 'Submit request' }));
    await act(() => vi.advanceTimersByTimeAsync(TRIAL_REQUEST_FAILURE_TIMEOUT_MS));
    const dialog = await screen.findByRole('dialog', { name: 'Extend submit failed' });
    expect(
      within(dialog).getByText('The request could not be sent. Please try again later.'),
    ).toBeInTheDocument();
  });

  it('shows a non-admin the expiration description, without the request button', async () => {
    trialApi({ role: 'user' });
    renderRoute('/trial');
    expect(await screen.findByText(/Ask your administrator to extend it/)).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Submit request' })).not.toBeInTheDocument();
  });

  it('sends anyone whose trial has not expired to the overview', async () => {
    trialApi({}, buildDeployment());
    const app = renderRoute('/trial');
    await waitFor(() => expect(app.location()).toBe('/dashboard'));
  });
});
