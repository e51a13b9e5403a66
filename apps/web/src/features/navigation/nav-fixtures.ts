/** Test data of the navigation rules: a signed-in context and the tenant answers it is built from. */
import type { AppsResponse, DeploymentConfig } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { buildDeployment, buildFeatures } from '../../test/console-status-fixtures';
import { buildCurrentUser } from '../../test/render-route';
import { licencePageShown, type NavContext } from './nav-items';

/** GET /api/v1/apps: Microsoft 365 mail with the anti-phishing engine. */
export function buildApps(overrides: Partial<AppsResponse> = {}): AppsResponse {
  return {
    apps: [{ name: 'office365_emails', state: 'enabled' }],
    tools: [{ name: 'ap_avanan', state: 'enabled' }],
    ...overrides,
  };
}

export interface NavContextOverrides {
  user?: Partial<CurrentUser>;
  features?: Partial<FeatureFlags>;
  deployment?: Partial<DeploymentConfig>;
  apps?: Partial<AppsResponse>;
  debug?: boolean;
  licencePageShown?: boolean;
}

/** An admin of a paid, non-MSP tenant with the default flags, unless overridden. */
export function buildNavContext(overrides: NavContextOverrides = {}): NavContext {
  const deployment = buildDeployment(overrides.deployment);
  return {
    user: buildCurrentUser(overrides.user),
    features: buildFeatures(overrides.features),
    deployment,
    apps: buildApps(overrides.apps),
    debug: overrides.debug ?? false,
    licencePageShown: overrides.licencePageShown ?? licencePageShown(deployment),
  };
}
