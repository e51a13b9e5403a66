import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { buildDeployment, buildExpiredTrial, consoleHandlers } from '../test/console-status-fixtures';
import { buildCurrentUser, errorResponse, jsonResponse, renderRoute, stubApi } from '../test/render-route';
import { canViewPolicy } from './guards';

function signedIn(
  user: Partial<CurrentUser> = {},
  features: Partial<FeatureFlags> = {},
  deployment = buildDeployment(),
) {
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser(user)),
    'GET /api/v1/auth/session': () =>
      jsonResponse(200, {
        authenticated: true,
        login_reason_required: false,
        password_change_required: false,
      }),
    ...consoleHandlers(features, deployment),
  });
}

async function landsOn(path: string, expected: string) {
  const app = renderRoute(path);
  await waitFor(() => expect(app.location()).toBe(expected));
  return app;
}

describe('authenticated guard', () => {
  it('passes the page as returnUrl to sign-in', async () => {
    stubApi({ 'GET /api/v1/current_user': () => errorResponse(403, 'forbidden', 'not authenticated') });
    await landsOn('/policy?tab=rules', `/auth/login?returnUrl=${encodeURIComponent('/policy?tab=rules')}`);
  });
});

describe('feature guard', () => {
  it('sends a poc user whose trial expired to /trial when enableTrialExpiredPage is on', async () => {
    signedIn({}, { enableTrialExpiredPage: true }, buildExpiredTrial());
    await landsOn('/security-events', '/trial');
  });

  it.each<[string, Partial<CurrentUser>, Partial<FeatureFlags>, ReturnType<typeof buildDeployment>]>([
    ['the flag is off', {}, { enableTrialExpiredPage: false }, buildExpiredTrial()],
    ['the user is hidden', { hidden: true }, {}, buildExpiredTrial()],
    ['the account is MSP', {}, {}, buildExpiredTrial({ is_msp: true })],
    ['the deployment is paid', {}, {}, buildDeployment({ trialExpired: true })],
  ])('lets the user through when %s', async (_case, user, features, deployment) => {
    signedIn(user, { enableTrialExpiredPage: true, ...features }, deployment);
    await landsOn('/security-events', '/security-events');
  });

  it('does not redirect the trial page itself (its route bypasses the guard)', async () => {
    signedIn({}, { enableTrialExpiredPage: true }, buildExpiredTrial());
    await landsOn('/trial', '/trial');
  });

  it('sends a user who must onboard to onboarding, or to v1/wizard when enableUI2Onboarding is off', async () => {
    signedIn({ on_boarding_required: true }, { enableUI2Onboarding: true });
    await landsOn('/dashboard', '/onboarding');
  });

  it('sends a user who must onboard to v1/wizard when enableUI2Onboarding is off', async () => {
    signedIn({ on_boarding_required: true }, { enableUI2Onboarding: false });
    await landsOn('/analytics/dashboard', '/v1/wizard');
  });

  it('sends a locked account to access-blocked even from a guarded child route', async () => {
    signedIn({ locked_status: { should_lock: true } });
    await landsOn('/policy', '/access-blocked/customer-locked');
  });

  it('lets the user through when the flags cannot be loaded', async () => {
    stubApi({ 'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser()) });
    await landsOn('/security-events', '/security-events');
  });
});

describe('onboarding guard', () => {
  it('sends a user who need not onboard to the overview', async () => {
    signedIn({ on_boarding_required: false });
    await landsOn('/onboarding', '/dashboard');
  });

  it('keeps a user who must onboard on the variant the flag picks', async () => {
    signedIn({ on_boarding_required: true }, { enableUI2Onboarding: true });
    await landsOn('/v1/wizard', '/onboarding');
  });

  it('sends to v1/wizard when enableUI2Onboarding is off', async () => {
    signedIn({ on_boarding_required: true }, { enableUI2Onboarding: false });
    await landsOn('/onboarding', '/v1/wizard');
  });
});

describe('locked area', () => {
  it('is open only to a locked account', async () => {
    signedIn();
    await landsOn('/access-blocked/customer-locked', '/dashboard');
  });
});

describe('policy guard', () => {
  it.each<Partial<CurrentUser>>([{ role: 'admin' }, { role: 'user' }])('lets %o in', async (user) => {
    signedIn(user);
    await landsOn('/policy', '/policy');
  });

  it('grants access by role admin or user, or by view_policy / view_edit_policy', () => {
    // SPEC §6 says further role values exist; the contracts know only admin and user so far.
    const other = { role: 'auditor' as CurrentUser['role'], view_policy: false, view_edit_policy: false };
    expect(canViewPolicy(other)).toBe(false);
    expect(canViewPolicy({ ...other, view_policy: true })).toBe(true);
    expect(canViewPolicy({ ...other, view_edit_policy: true })).toBe(true);
    expect(canViewPolicy({ ...other, role: 'user' })).toBe(true);
  });
});

describe('admin-only pages', () => {
  it.each([
    '/mail-explorer',
    '/mail-explorer/message/abc',
    '/user-interaction/reported-phishing',
    '/user-interaction/modified-attachments',
    '/analytics/dashboard',
    '/configuration/security-exceptions/spam-exceptions',
  ])('send a plain user from %s to the no-access page', async (path) => {
    signedIn({ role: 'user' });
    await landsOn(path, '/no-access-page');
  });

  it('let an admin in', async () => {
    signedIn({ role: 'admin' });
    await landsOn('/user-interaction/reported-phishing', '/user-interaction/reported-phishing');
  });

  it('leave the pages every role has to a plain user (Quarantined Items shows their own mail)', async () => {
    signedIn({ role: 'user' });
    await landsOn('/security-events', '/security-events');
    await landsOn('/user-interaction/quarantine-item', '/user-interaction/quarantine-item');
  });
});

describe('smart-archiving guard', () => {
  it('opens smart archiving only with enableSmartArchiveTestFF', async () => {
    signedIn({}, { enableSmartArchiveTestFF: true });
    await landsOn('/smart-archiving/search', '/smart-archiving/search');
  });

  it('sends to the overview without the flag', async () => {
    signedIn({}, { enableSmartArchiveTestFF: false });
    await landsOn('/smart-archiving', '/dashboard');
  });
});

describe("the root '#/'", () => {
  it('lands a signed-in user on the overview', async () => {
    signedIn();
    await landsOn('/', '/dashboard');
  });
});
