import { describe, expect, it } from 'vitest';
import { buildDeployment, buildFeatures } from '../../test/console-status-fixtures';
import { buildCurrentUser } from '../../test/render-route';
import { licenceBanner, navbarLabel } from './licence-status';

const aboutToExpire = buildDeployment({
  paidExpirationInDays: 12,
  licence: { isExpired: false, isAboutToExpire: true, licenseExpirationDate: '2026-05-01' },
});
const expired = buildDeployment({
  paidExpirationInDays: -3,
  licence: { isExpired: true, isAboutToExpire: false, licenseExpirationDate: '2026-04-01' },
});
const on = buildFeatures({ enableLicenseExpirationLabel: true });
const user = buildCurrentUser();

describe('licenceBanner (SPEC §4 "Licence banner")', () => {
  it('shows for a paid licence about to expire or expired', () => {
    expect(licenceBanner({ deployment: aboutToExpire, features: on, user, dismissed: false })).toEqual({
      kind: 'aboutToExpire',
      days: 12,
      date: '2026-05-01',
    });
    expect(licenceBanner({ deployment: expired, features: on, user, dismissed: false })?.kind).toBe(
      'expired',
    );
  });

  it.each([
    ['the flag is off', aboutToExpire, buildFeatures({ enableLicenseExpirationLabel: false }), false],
    ['it was dismissed in this session', aboutToExpire, on, true],
    ['the portal is MSP', { ...aboutToExpire, is_msp: true }, on, false],
    ['the deployment is not paid', { ...aboutToExpire, deploymentMode: 'poc' as const }, on, false],
    ['the licence is fine', buildDeployment(), on, false],
  ])('does not show when %s', (_case, deployment, features, dismissed) => {
    expect(licenceBanner({ deployment, features, user, dismissed })).toBeNull();
  });

  it('shows a locked account only to hidden users, as the internal-access message', () => {
    const locked = { ...aboutToExpire, portalLicenseState: 'locked' as const };
    expect(licenceBanner({ deployment: locked, features: on, user, dismissed: false })).toBeNull();
    expect(
      licenceBanner({ deployment: locked, features: on, user: { ...user, hidden: true }, dismissed: false }),
    ).toEqual({ kind: 'lockedInternal' });
  });
});

describe('navbarLabel (SPEC §4 "Navbar label")', () => {
  const poc = (days: number | null) =>
    buildDeployment({ deploymentMode: 'poc', pocExpiresInDays: days, paidExpirationInDays: null });

  it('shows the paid licence status when it is expiring or expired', () => {
    expect(navbarLabel({ deployment: expired, features: on, user })).toEqual({
      kind: 'licenceExpired',
      className: 'label-item license-expired',
    });
    expect(navbarLabel({ deployment: aboutToExpire, features: on, user })).toEqual({
      kind: 'licenceAboutToExpire',
      count: 12,
      className: 'label-item license-about-to-expire',
    });
  });

  it('shows Premium for a managed service and Demo for a demo', () => {
    expect(
      navbarLabel({ deployment: buildDeployment({ isManagedService: true }), features: on, user })?.kind,
    ).toBe('premium');
    expect(
      navbarLabel({ deployment: buildDeployment({ deploymentMode: 'demo' }), features: on, user })?.kind,
    ).toBe('demo');
  });

  it('shows the days left of a poc, Expired below 0 (not to hidden users), nothing without days', () => {
    expect(navbarLabel({ deployment: poc(5), features: on, user })).toEqual({
      kind: 'daysLeft',
      count: 5,
      className: 'label-item',
    });
    expect(navbarLabel({ deployment: poc(-1), features: on, user })).toEqual({
      kind: 'expired',
      className: 'label-item license-expired',
    });
    expect(navbarLabel({ deployment: poc(-1), features: on, user: { hidden: true } })).toBeNull();
    expect(navbarLabel({ deployment: poc(0), features: on, user })).toBeNull();
    expect(navbarLabel({ deployment: poc(null), features: on, user })).toBeNull();
    expect(navbarLabel({ deployment: buildDeployment(), features: on, user })).toBeNull();
  });

  it('shows no licence status for MSP', () => {
    expect(navbarLabel({ deployment: { ...expired, is_msp: true }, features: on, user })).toBeNull();
  });
});
