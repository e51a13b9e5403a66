import type { FeatureFlags } from '@moat/contracts/features';
import type { Verdict } from '@moat/contracts/quarantine';
import type { DbOrTx } from '../../db/client.ts';
import type { Caches } from '../../lib/cache.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { RestorePolicy } from '../quarantine/policy.ts';
import type { TenantRow, TenantsRepo } from './tenants.repo.ts';

/**
 * How long a node keeps a tenant's settings. Every write to these tables is announced by the
 * database (migration 0011) and forgets them at once on every node, and while the notices cannot
 * be heard nothing is cached (lib/cache.ts); this bound only covers a notice lost in transit.
 * A minute keeps that rare case short for an admin who just changed a flag or a policy, while the
 * public pages, which read these on every call (SPEC §7), go to the database about once a minute.
 */
export const TENANT_SETTINGS_TTL_MS = 60_000;

/**
 * A tenant's settings as the sign-in area and the public pages read them on every call: the
 * tenant itself, its feature flags and its restore policies, cached per node.
 */
export function createTenantSettings(deps: {
  caches: Pick<Caches, 'create'>;
  tenants: Pick<TenantsRepo, 'findById' | 'primary'>;
  features: Pick<FeaturesRepo, 'flagsOf'>;
  /** The stored policy or the default (modules/quarantine/policy.ts), read on `tx` when given. */
  restorePolicyOf: (tenantId: string, verdict: Verdict, tx?: DbOrTx) => Promise<RestorePolicy>;
}) {
  const ttlMs = TENANT_SETTINGS_TTL_MS;
  // The primary tenant is the first one created: any write to tenants may change it or its row.
  const tenants = deps.caches.create<TenantRow | null>('tenants', { tables: ['tenants'], ttlMs });
  const flags = deps.caches.create<FeatureFlags>('feature-flags', { tables: ['feature_flags'], ttlMs });
  const policies = deps.caches.create<RestorePolicy>('restore-policies', {
    tables: ['restore_policies'],
    ttlMs,
  });
  const PRIMARY = 'primary';

  return {
    /** The first tenant created: the deployment's own, answering public calls that carry no tenant. */
    primaryTenant: (): Promise<TenantRow | null> => tenants.get(PRIMARY, () => deps.tenants.primary()),

    tenantById: (id: string): Promise<TenantRow | null> =>
      tenants.get(`id:${id}`, () => deps.tenants.findById(id)),

    /** The tenant's flags (stored over the defaults), a copy the caller may change. */
    async flagsOf(tenantId: string): Promise<FeatureFlags> {
      return { ...(await flags.get(tenantId, () => deps.features.flagsOf(tenantId))) };
    },

    /**
     * A verdict's restore policy. `tx`: read on the caller's transaction on a miss (the embedded
     * database has one connection, which that transaction holds).
     */
    restorePolicy: (tenantId: string, verdict: Verdict, tx?: DbOrTx): Promise<RestorePolicy> =>
      policies.get(`${tenantId}:${verdict}`, () => deps.restorePolicyOf(tenantId, verdict, tx)),
  };
}
export type TenantSettings = ReturnType<typeof createTenantSettings>;
