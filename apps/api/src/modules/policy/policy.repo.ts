import type { Verdict } from '@moat/contracts/quarantine';
import { and, desc, eq, gte, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { gatewayPolicies, mailLog, policyOverrides, restorePolicies, tenants } from '../../db/schema.ts';
import { createSpamLearningRepo } from '../spam-learning/spam-learning.repo.ts';

export interface OverrideRow {
  id: string;
  match: string;
  value: string;
  name: string;
  verdict: string;
  action: string;
}

export interface StoredPolicy {
  actions: Partial<Record<Verdict, string>>;
  restore: Partial<Record<Verdict, { mode: string; identificationRequired: boolean }>>;
  overrides: OverrideRow[];
  spamThresholds: { suspicious: number; spam: number };
}

export interface PolicyWrite {
  actions: Record<Verdict, string>;
  overrides: Array<Omit<OverrideRow, 'id'>>;
  /** Undefined: unchanged. */
  spamThresholds?: { suspicious: number; spam: number } | undefined;
}

/** A processed message (one recipient) the what-if replays. */
export interface JudgedMessage {
  id: string;
  receivedAt: Date;
  recipient: string;
  sender: string;
  subject: string;
  verdict: string;
  action: string;
  attachments: number;
  reasons: string[];
}

/** Store the gateway's action of each verdict given (inside the caller's transaction). */
async function setActions(
  tenantId: string,
  actions: Partial<Record<Verdict, string>>,
  tx: DbOrTx,
): Promise<void> {
  const now = new Date();
  for (const [verdict, action] of Object.entries(actions)) {
    await tx
      .insert(gatewayPolicies)
      .values({ tenantId, verdict, action })
      .onConflictDoUpdate({
        target: [gatewayPolicies.tenantId, gatewayPolicies.verdict],
        set: { action, updatedAt: now },
      });
  }
}

/**
 * The Policy screen's data: the gateway's actions, the overrides and the spam thresholds it
 * saves, and the restore policies it shows (saved in Settings → User Interaction → Quarantine).
 */
export function createPolicyRepo(db: DbOrTx) {
  return {
    setActions,

    async policyOf(tenantId: string, tx?: DbOrTx): Promise<StoredPolicy | null> {
      const q = tx ?? db;
      const [tenant] = await q.select({ id: tenants.id }).from(tenants).where(eq(tenants.id, tenantId));
      if (!tenant) return null;
      const actions = await q
        .select({ verdict: gatewayPolicies.verdict, action: gatewayPolicies.action })
        .from(gatewayPolicies)
        .where(eq(gatewayPolicies.tenantId, tenantId));
      const restore = await q
        .select({
          verdict: restorePolicies.verdict,
          mode: restorePolicies.mode,
          identificationRequired: restorePolicies.identificationRequired,
        })
        .from(restorePolicies)
        .where(eq(restorePolicies.tenantId, tenantId));
      const overrides = await q
        .select({
          id: policyOverrides.id,
          match: policyOverrides.match,
          value: policyOverrides.value,
          name: policyOverrides.name,
          verdict: policyOverrides.verdict,
          action: policyOverrides.action,
        })
        .from(policyOverrides)
        .where(eq(policyOverrides.tenantId, tenantId))
        .orderBy(policyOverrides.position, policyOverrides.createdAt);
      return {
        actions: Object.fromEntries(actions.map((r) => [r.verdict, r.action])),
        restore: Object.fromEntries(
          restore.map((r) => [r.verdict, { mode: r.mode, identificationRequired: r.identificationRequired }]),
        ),
        overrides,
        spamThresholds: await createSpamLearningRepo(q).thresholdsOf(tenantId, q),
      };
    },

    /** Replace the whole policy of a tenant (inside the caller's transaction). */
    async replace(tenantId: string, policy: PolicyWrite, tx: DbOrTx): Promise<void> {
      await setActions(tenantId, policy.actions, tx);
      if (policy.spamThresholds)
        await createSpamLearningRepo(tx).setThresholds(tenantId, policy.spamThresholds, tx);
      await tx.delete(policyOverrides).where(eq(policyOverrides.tenantId, tenantId));
      if (policy.overrides.length > 0) {
        await tx
          .insert(policyOverrides)
          .values(policy.overrides.map((o, position) => ({ tenantId, ...o, position })));
      }
    },

    /** Store the restore policy of each verdict given (inside the caller's transaction). */
    async setRestorePolicies(
      tenantId: string,
      restore: Partial<Record<Verdict, { mode: string; identificationRequired: boolean }>>,
      tx: DbOrTx,
    ): Promise<void> {
      const now = new Date();
      for (const [verdict, r] of Object.entries(restore)) {
        const values = { mode: r.mode as 'none', identificationRequired: r.identificationRequired };
        await tx
          .insert(restorePolicies)
          .values({ tenantId, verdict: verdict as Verdict, ...values })
          .onConflictDoUpdate({
            target: [restorePolicies.tenantId, restorePolicies.verdict],
            set: { ...values, updatedAt: now },
          });
      }
    },

    /** The tenant's messages since `since` that the gateway judged not clean (newest first). */
    async judgedSince(tenantId: string, since: Date, limit: number, tx?: DbOrTx): Promise<JudgedMessage[]> {
      return (tx ?? db)
        .select({
          id: mailLog.id,
          receivedAt: mailLog.receivedAt,
          recipient: mailLog.recipient,
          sender: mailLog.sender,
          subject: mailLog.subject,
          verdict: mailLog.verdict,
          action: mailLog.action,
          attachments: mailLog.attachments,
          reasons: mailLog.reasons,
        })
        .from(mailLog)
        .where(
          and(
            eq(mailLog.tenantId, tenantId),
            gte(mailLog.receivedAt, since),
            inArray(mailLog.verdict, ['phishing', 'malware', 'spam', 'suspicious']),
          ),
        )
        .orderBy(desc(mailLog.receivedAt))
        .limit(limit);
    },
  };
}
export type PolicyRepo = ReturnType<typeof createPolicyRepo>;
