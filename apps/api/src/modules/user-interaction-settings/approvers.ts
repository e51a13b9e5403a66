import { quarantineSettingsFrom } from '@moat/contracts/user-interaction-settings';
import type { TenantRow } from '../tenants/tenants.repo.ts';

/**
 * Whether this admin may decide the tenant's restore requests: every admin does, unless the
 * tenant named its approvers (Settings → User Interaction → Quarantine); then only they do.
 */
export function mayDecideRestoreRequests(
  tenant: Pick<TenantRow, 'quarantineSettings'>,
  userId: string | null,
): boolean {
  const settings = quarantineSettingsFrom(tenant.quarantineSettings);
  if (settings.approvers === 'admins') return true;
  return userId !== null && settings.approver_ids.includes(userId);
}
