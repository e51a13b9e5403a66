import { type FeatureFlags, resolveFeatures } from '@moat/contracts/features';
import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { featureFlags } from '../../db/schema.ts';

export function createFeaturesRepo(db: DbOrTx) {
  return {
    /** The tenant's flags: stored values over the defaults of contracts. */
    async flagsOf(tenantId: string, tx?: DbOrTx): Promise<FeatureFlags> {
      const rows = await (tx ?? db)
        .select({ name: featureFlags.name, enabled: featureFlags.enabled })
        .from(featureFlags)
        .where(eq(featureFlags.tenantId, tenantId));
      return resolveFeatures(rows);
    },
    async set(tenantId: string, values: Record<string, boolean>, tx?: DbOrTx): Promise<void> {
      const entries = Object.entries(values);
      if (entries.length === 0) return;
      await (tx ?? db)
        .insert(featureFlags)
        .values(entries.map(([name, enabled]) => ({ tenantId, name, enabled })))
        .onConflictDoUpdate({
          target: [featureFlags.tenantId, featureFlags.name],
          set: { enabled: sql`excluded.enabled`, updatedAt: sql`now()` },
        });
    },
  };
}
export type FeaturesRepo = ReturnType<typeof createFeaturesRepo>;
