import { FEATURE_DEFAULTS } from '@moat/contracts/features';
import { describe, expect, it } from 'vitest';
import { showsUnifiedQuarantineToggle } from './show-toggle';

const withFlag = { ...FEATURE_DEFAULTS, enableMSUnifiedQuarantine: true };
const office = { apps: [{ name: 'office365_emails' as const, state: 'enabled' as const }], tools: [] };

describe('showsUnifiedQuarantineToggle (SPEC §2.4 "Top bar")', () => {
  it('shows on the dashboard and the analytics dashboard with the flag and Microsoft 365 mail active', () => {
    expect(showsUnifiedQuarantineToggle('/dashboard', withFlag, office)).toBe(true);
    expect(showsUnifiedQuarantineToggle('/analytics/dashboard', withFlag, office)).toBe(true);
  });

  it('hides on other pages, without the flag, or without an active Microsoft 365 mail app', () => {
    expect(showsUnifiedQuarantineToggle('/security-events', withFlag, office)).toBe(false);
    expect(showsUnifiedQuarantineToggle('/dashboard', FEATURE_DEFAULTS, office)).toBe(false);
    expect(
      showsUnifiedQuarantineToggle('/dashboard', withFlag, {
        apps: [{ name: 'office365_emails', state: 'disabled' }],
        tools: [],
      }),
    ).toBe(false);
    expect(
      showsUnifiedQuarantineToggle('/dashboard', withFlag, {
        apps: [{ name: 'google_mail', state: 'enabled' }],
        tools: [],
      }),
    ).toBe(false);
  });
});
