import type { DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';

type Deployment = Pick<
  DeploymentConfig,
  | 'deploymentMode'
  | 'is_msp'
  | 'isManagedService'
  | 'licence'
  | 'paidExpirationInDays'
  | 'pocExpiresInDays'
  | 'portalLicenseState'
>;
type Features = Pick<FeatureFlags, 'enableLicenseExpirationLabel'>;
type User = Pick<CurrentUser, 'hidden' | 'locked_status'>;

/** The portal is locked by the provider, or the user's account is (SPEC §4 "Licence banner"). */
export function isAccountLocked(deployment: Pick<Deployment, 'portalLicenseState'>, user: User): boolean {
  return deployment.portalLicenseState === 'locked' || user.locked_status.should_lock;
}

/** Whether the licence of a non-MSP portal is about to expire or expired (SPEC §4 "Licence state"). */
function licenceWarning(deployment: Deployment): 'expired' | 'aboutToExpire' | null {
  if (deployment.is_msp) return null;
  if (deployment.licence.isExpired) return 'expired';
  if (deployment.licence.isAboutToExpire) return 'aboutToExpire';
  return null;
}

export type LicenceBanner =
  | { kind: 'expired' | 'aboutToExpire'; days: number | null; date: string | null }
  | { kind: 'lockedInternal' };

/**
 * SPEC §4 "Licence banner": for paid deployments with enableLicenseExpirationLabel on whose licence
 * is about to expire or expired, not MSP, account not locked, not dismissed in this browser
 * session. A locked account shows only hidden (internal) users a message, with no button.
 */
export function licenceBanner(input: {
  deployment: Deployment;
  features: Features;
  user: User;
  dismissed: boolean;
}): LicenceBanner | null {
  const { deployment, features, user, dismissed } = input;
  if (deployment.is_msp || !features.enableLicenseExpirationLabel) return null;
  if (isAccountLocked(deployment, user)) return user.hidden ? { kind: 'lockedInternal' } : null;
  const warning = licenceWarning(deployment);
  if (deployment.deploymentMode !== 'paid' || warning === null || dismissed) return null;
  return {
    kind: warning,
    days: deployment.paidExpirationInDays,
    date: deployment.licence.licenseExpirationDate,
  };
}

export type NavbarLabelKind =
  | 'licenceExpired'
  | 'licenceAboutToExpire'
  | 'premium'
  | 'demo'
  | 'daysLeft'
  | 'expired';

export interface NavbarLabelState {
  kind: NavbarLabelKind;
  /** Days left (poc trial, or paid licence about to expire). */
  count?: number;
  /** label-item plus license-expired or license-about-to-expire (SPEC §4 "Navbar label"). */
  className: string;
}

const LABEL_CLASS = 'label-item';
const EXPIRED_CLASS = `${LABEL_CLASS} license-expired`;
const ABOUT_TO_EXPIRE_CLASS = `${LABEL_CLASS} license-about-to-expire`;

/**
 * SPEC §4 "Navbar label": the paid licence status when it is expiring or expired (not MSP, and
 * flag enableLicenseExpirationLabel on); otherwise Premium for a managed service, Demo for a
 * demo, and for a poc the days left (below 0: Expired, not shown to hidden users). No days left
 * (0 or none) or no trial: no label.
 */
export function navbarLabel(input: {
  deployment: Deployment;
  features: Features;
  user: Pick<User, 'hidden'>;
}): NavbarLabelState | null {
  const { deployment, features, user } = input;
  const warning = features.enableLicenseExpirationLabel ? licenceWarning(deployment) : null;
  if (warning === 'expired') return { kind: 'licenceExpired', className: EXPIRED_CLASS };
  if (warning === 'aboutToExpire') {
    return {
      kind: 'licenceAboutToExpire',
      count: Math.max(deployment.paidExpirationInDays ?? 0, 0),
      className: ABOUT_TO_EXPIRE_CLASS,
    };
  }
  if (deployment.isManagedService) return { kind: 'premium', className: LABEL_CLASS };
  if (deployment.deploymentMode === 'demo') return { kind: 'demo', className: LABEL_CLASS };
  if (deployment.deploymentMode !== 'poc') return null;
  const days = deployment.pocExpiresInDays;
  if (!days) return null;
  if (days < 0) return user.hidden ? null : { kind: 'expired', className: EXPIRED_CLASS };
  return { kind: 'daysLeft', count: days, className: LABEL_CLASS };
}

/** A licence date of the API (YYYY-MM-DD) in the reader's locale; the raw text if it does not parse. */
export function formatLicenceDate(date: string, locale?: string): string {
  const parsed = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime())) return date;
  return new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeZone: 'UTC' }).format(parsed);
}

/** The banner's "dismissed in this browser session" flag (SPEC §4), kept in sessionStorage. */
const DISMISSED_KEY = 'moat.licenceBannerDismissed';

export function isLicenceBannerDismissed(): boolean {
  try {
    return window.sessionStorage.getItem(DISMISSED_KEY) === '1';
  } catch {
    return false;
  }
}

export function dismissLicenceBanner(): void {
  try {
    window.sessionStorage.setItem(DISMISSED_KEY, '1');
  } catch {
    // Without storage the banner stays hidden until the page is reloaded (component state).
  }
}
