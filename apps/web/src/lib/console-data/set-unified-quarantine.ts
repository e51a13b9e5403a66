import { CONSOLE_API, type DeploymentConfig, deploymentConfigSchema } from '@moat/contracts/console';
import { apiPut } from '../http';

/** PUT /api/v1/unified_quarantine: turns the Microsoft unified quarantine on or off (admins). */
export function setUnifiedQuarantine(enabled: boolean): Promise<DeploymentConfig> {
  return apiPut(CONSOLE_API.unifiedQuarantine, { enabled }, { schema: deploymentConfigSchema });
}
