import { describe, expect, it } from 'vitest';
import { legacyTarget } from './routes.ts';

describe('legacyTarget', () => {
  it.each([
    ['email_restore.html', '/email-actions/restore-email'],
    ['email_action.html', '/email-actions/action'],
    ['restore_original.html', '/email-actions/restore-original'],
    ['!', '/'],
    ['!/password-reset', '/auth/reset-password'],
    ['!/dashboard', '/dashboard'],
    ['!/dashboard/google_mail', '/onboarding/saas-selection'],
    ['!/authorize-error', '/error/403'],
    ['!/authorize-error/saml/x', '/error/403/saml/x'],
    ['/!/password-expired/a%40b.test', '/auth/password-expired/a%40b.test'],
    ['v1/wizard-user-management', '/system-settings/user-management'],
  ])('sends %s to %s', (from, to) => {
    expect(legacyTarget(from)).toBe(to);
  });

  it('leaves other paths alone', () => {
    expect(legacyTarget('dashboard')).toBeNull();
    expect(legacyTarget('email_restore.htmlx')).toBeNull();
    expect(legacyTarget('!/dashboardx')).toBeNull();
  });
});
