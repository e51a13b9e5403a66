import type { AppsResponse } from '@moat/contracts/console';
import type { FeatureFlags } from '@moat/contracts/features';
import { ROUTES } from '@moat/contracts/routes';

/** The analytics dashboard: the other page that carries the toggle. */
export const ANALYTICS_DASHBOARD_PATH = `${ROUTES.analytics}/dashboard`;

/**
 * SPEC §2.4 "Top bar": the unified quarantine toggle shows on the dashboard and the analytics
 * dashboard when flag enableMSUnifiedQuarantine is on and the Microsoft 365 mail app is active.
 */
export function showsUnifiedQuarantineToggle(
  pathname: string,
  features: FeatureFlags,
  apps: AppsResponse,
): boolean {
  if (pathname !== ROUTES.dashboard && pathname !== ANALYTICS_DASHBOARD_PATH) return false;
  if (!features.enableMSUnifiedQuarantine) return false;
  return apps.apps.some((app) => app.name === 'office365_emails' && app.state === 'enabled');
}
