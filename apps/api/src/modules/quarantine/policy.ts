import { DEFAULT_RESTORE_POLICY, type RestoreMode, type Verdict } from '@moat/contracts/quarantine';
import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { restorePolicies } from '../../db/schema.ts';

export interface RestorePolicy {
  mode: RestoreMode;
  identificationRequired: boolean;
}

/** The tenant's restore policy for a verdict: its stored row, or the default. */
export async function restorePolicyOf(
  db: DbOrTx,
  tenantId: string,
  verdict: Verdict,
): Promise<RestorePolicy> {
  const [row] = await db
    .select({ mode: restorePolicies.mode, identificationRequired: restorePolicies.identificationRequired })
    .from(restorePolicies)
    .where(and(eq(restorePolicies.tenantId, tenantId), eq(restorePolicies.verdict, verdict)));
  // Malware is never restorable, whatever is stored.
  if (verdict === 'malware') return { mode: 'none', identificationRequired: true };
  return row
    ? { mode: row.mode as RestoreMode, identificationRequired: row.identificationRequired }
    : DEFAULT_RESTORE_POLICY[verdict];
}

export async function setRestorePolicy(
  db: DbOrTx,
  tenantId: string,
  verdict: Verdict,
  policy: RestorePolicy,
): Promise<void> {
  await db
    .insert(restorePolicies)
    .values({ tenantId, verdict, ...policy })
    .onConflictDoUpdate({
      target: [restorePolicies.tenantId, restorePolicies.verdict],
      set: { ...policy, updatedAt: new Date() },
    });
}
