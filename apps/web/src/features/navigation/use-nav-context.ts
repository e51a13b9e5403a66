import type { AppsResponse, DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import { FEATURE_DEFAULTS } from '@moat/contracts/features';
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef } from 'react';
import { appsQueryOptions } from '../../lib/console-data/get-apps';
import { deploymentQueryOptions } from '../../lib/console-data/get-deployment';
import { uiFeaturesQueryOptions } from '../../lib/console-data/get-ui-features';
import { useDebugMode } from '../../lib/use-debug-mode';
import { licencePageShown, type NavContext } from './nav-items';

/**
 * What the rules see when a tenant call fails: the default flags, a paid non-MSP deployment with
 * no add-on active, and no active app. The navigation then still offers the pages every tenant has.
 */
const UNKNOWN_DEPLOYMENT: DeploymentConfig = {
  tenant_name: '',
  brand: 'moat',
  brandName: '',
  deploymentMode: 'paid',
  portalLicenseState: null,
  is_msp: false,
  isManagedService: false,
  is_avanan_msp: false,
  is_cp_msp: false,
  mspBrandID: null,
  associationDate: null,
  demoExpirationDate: null,
  paidStartDate: null,
  paidExpirationDate: null,
  paidExpirationInDays: null,
  paidDurationInDays: null,
  trialExpirationDays: 0,
  pocExpiresInDays: null,
  trialExpired: false,
  waitingForApproval: false,
  unifiedQuarantineManuallyDisabled: false,
  licence: { isExpired: false, isAboutToExpire: false, licenseExpirationDate: null },
  training: { is_active: false, msp_allowed: false },
  dmarc: { is_active: false, msp_allowed: false },
  archiving: { is_active: false, msp_allowed: false },
  sspm: { is_active: false, msp_allowed: false },
  support_email: null,
  default_application_mode: 'mixed',
};
const NO_APPS: AppsResponse = { apps: [], tools: [] };

/**
 * The navigation context of the signed-in `user`: null until the tenant's flags, deployment and apps
 * have first answered; with the fallbacks above for any of them that failed.
 */
export function useNavContext(user: CurrentUser): NavContext | null {
  const features = useQuery(uiFeaturesQueryOptions());
  const deployment = useQuery(deploymentQueryOptions());
  const apps = useQuery(appsQueryOptions());
  // Troubleshooting mode: `?debug=1` / `?debug=0`, applied on entry (lib/debug-mode).
  const debug = useDebugMode();
  // Once all three have answered (or failed), the menu stays: a failed call tried again when
  // another component starts watching it goes back to pending, which must not blank the menu.
  const settled = useRef(false);
  if (!features.isPending && !deployment.isPending && !apps.isPending) settled.current = true;
  const loading = !settled.current;

  return useMemo(() => {
    if (loading) return null;
    const tenant = deployment.data ?? UNKNOWN_DEPLOYMENT;
    return {
      user,
      features: features.data ?? FEATURE_DEFAULTS,
      deployment: tenant,
      apps: apps.data ?? NO_APPS,
      debug,
      licencePageShown: licencePageShown(tenant),
    };
  }, [loading, user, features.data, deployment.data, apps.data, debug]);
}
