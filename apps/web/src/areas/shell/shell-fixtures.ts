import type { AppsResponse, DeploymentConfig, Incident } from '@moat/contracts/console';
import type { CurrentUser } from '@moat/contracts/current-user';
import type { FeatureFlags } from '@moat/contracts/features';
import { buildApps } from '../../features/navigation/nav-fixtures';
import { buildDeployment, consoleHandlers } from '../../test/console-status-fixtures';
import { buildCurrentUser, jsonResponse, stubApi } from '../../test/render-route';

/** Stubs a signed-in shell: the user, the tenant's flags, deployment and apps, and its incidents. */
export function stubShell(
  options: {
    user?: Partial<CurrentUser>;
    features?: Partial<FeatureFlags>;
    deployment?: Partial<DeploymentConfig>;
    apps?: Partial<AppsResponse>;
    incidents?: Incident[];
    handlers?: Parameters<typeof stubApi>[0];
  } = {},
) {
  return stubApi({
    'GET /api/v1/current_user': () => jsonResponse(200, buildCurrentUser(options.user)),
    ...consoleHandlers(options.features, buildDeployment(options.deployment)),
    'GET /api/v1/apps': () => jsonResponse(200, buildApps(options.apps)),
    'GET /api/v1/incidents': () => jsonResponse(200, options.incidents ?? []),
    ...options.handlers,
  });
}
