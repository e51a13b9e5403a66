import type { Verdict } from '@moat/contracts/quarantine';
import { and, eq, inArray, ne } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  gatewayPolicies,
  personalSenderLists,
  policyOverrides,
  securityTools,
  senderLists,
  users,
} from '../../db/schema.ts';
import { createSpamLearningRepo } from '../../modules/spam-learning/spam-learning.repo.ts';
import type { PersonalEntry, StoredOverride } from './policy.ts';

export type SenderListName = 'allow' | 'block';

/** An exception entry as the gateway reads it (policy.ts decides which one counts). */
export interface ExceptionMatch {
  id: string;
  list: SenderListName;
  kind: string;
  scope: string;
  value: string;
  comment: string;
  createdBy: string;
  expiresAt: Date | null;
}

const matchColumns = {
  id: senderLists.id,
  list: senderLists.list,
  kind: senderLists.kind,
  scope: senderLists.scope,
  value: senderLists.value,
  comment: senderLists.comment,
  createdBy: senderLists.createdBy,
  expiresAt: senderLists.expiresAt,
};

/** The gateway's per-tenant settings: its action per verdict and its sender allow/block lists. */
export function createGatewayPolicyRepo(db: DbOrTx) {
  return {
    /** The tenant's stored actions, by verdict (verdicts without a row use the defaults). */
    async actionsOf(tenantId: string, tx?: DbOrTx): Promise<Partial<Record<Verdict, string>>> {
      const rows = await (tx ?? db)
        .select({ verdict: gatewayPolicies.verdict, action: gatewayPolicies.action })
        .from(gatewayPolicies)
        .where(eq(gatewayPolicies.tenantId, tenantId));
      return Object.fromEntries(rows.map((r) => [r.verdict, r.action]));
    },

    /** The tenant's overrides of the action per verdict (Policy screen), in their saved order. */
    async overridesOf(tenantId: string, tx?: DbOrTx): Promise<StoredOverride[]> {
      return (tx ?? db)
        .select({
          match: policyOverrides.match,
          value: policyOverrides.value,
          verdict: policyOverrides.verdict,
          action: policyOverrides.action,
        })
        .from(policyOverrides)
        .where(eq(policyOverrides.tenantId, tenantId))
        .orderBy(policyOverrides.position);
    },

    /** The tenant's spam score thresholds (its policy; the defaults without a row). */
    spamThresholdsOf: (tenantId: string, tx?: DbOrTx) =>
      createSpamLearningRepo(db).thresholdsOf(tenantId, tx),

    /** The security tools the tenant turned off (Security Engines): their engines skip its mail. */
    async disabledToolsOf(tenantId: string, tx?: DbOrTx): Promise<string[]> {
      const rows = await (tx ?? db)
        .select({ name: securityTools.name })
        .from(securityTools)
        .where(and(eq(securityTools.tenantId, tenantId), eq(securityTools.state, 'disabled')));
      return rows.map((r) => r.name);
    },

    async setAction(tenantId: string, verdict: Verdict, action: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .insert(gatewayPolicies)
        .values({ tenantId, verdict, action })
        .onConflictDoUpdate({
          target: [gatewayPolicies.tenantId, gatewayPolicies.verdict],
          set: { action, updatedAt: new Date() },
        });
    },

    /**
     * The tenant's entries among `values` (addresses, domains, URLs, SHA-256), looked up by the
     * primary key (tenant, list, value): the cost does not grow with the size of the lists.
     * Expired entries come back too (with their expiry): the caller's clock decides. DLP's
     * entries (scope `dlp`) are about the tenant's outbound mail only: inbound mail never sees
     * them, and outbound mail sees only them.
     */
    async entriesAmong(
      tenantId: string,
      values: string[],
      tx?: DbOrTx,
      direction: 'inbound' | 'outbound' = 'inbound',
    ): Promise<ExceptionMatch[]> {
      if (values.length === 0) return [];
      const rows = await (tx ?? db)
        .select(matchColumns)
        .from(senderLists)
        .where(
          and(
            eq(senderLists.tenantId, tenantId),
            inArray(senderLists.list, ['allow', 'block']),
            inArray(senderLists.value, values),
            direction === 'outbound' ? eq(senderLists.scope, 'dlp') : ne(senderLists.scope, 'dlp'),
          ),
        );
      return rows as ExceptionMatch[];
    },

    /**
     * The own allow and block entries (issue 12, SPEC §6) of the tenant's user with this address;
     * none for an address that is nobody's. At most MY_SENDERS_MAX per person.
     */
    async personalEntriesOf(tenantId: string, recipient: string, tx?: DbOrTx): Promise<PersonalEntry[]> {
      return (tx ?? db)
        .select({
          id: personalSenderLists.id,
          list: personalSenderLists.list,
          kind: personalSenderLists.kind,
          value: personalSenderLists.value,
        })
        .from(personalSenderLists)
        .innerJoin(users, eq(users.id, personalSenderLists.userId))
        .where(
          and(
            eq(users.email, recipient.toLowerCase()),
            eq(users.tenantId, tenantId),
            eq(personalSenderLists.tenantId, tenantId),
          ),
        );
    },

    /** The tenant's IP-range entries (few; matched against the client address in policy.ts). */
    async ipRangesOf(tenantId: string, tx?: DbOrTx): Promise<ExceptionMatch[]> {
      const rows = await (tx ?? db)
        .select(matchColumns)
        .from(senderLists)
        .where(and(eq(senderLists.tenantId, tenantId), eq(senderLists.kind, 'ip_range')));
      return rows as ExceptionMatch[];
    },
  };
}
export type GatewayPolicyRepo = ReturnType<typeof createGatewayPolicyRepo>;
