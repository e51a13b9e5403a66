import type { RestoreMode, Verdict } from '@moat/contracts/quarantine';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  messageActions,
  quarantineAttachments,
  quarantineMessages,
  restorePolicies,
  securityEvents,
} from '../../db/schema.ts';

export type HeldMessageRow = typeof quarantineMessages.$inferSelect;
export type NewHeldMessage = typeof quarantineMessages.$inferInsert;
export type NewHeldAttachment = typeof quarantineAttachments.$inferInsert;
export type NewSecurityEvent = typeof securityEvents.$inferInsert;

/** A tenant's stored restore policy row for one verdict. */
export interface StoredRestorePolicy {
  mode: RestoreMode;
  identificationRequired: boolean;
}

/** Held mail: the message, its attachments' facts, its one-click actions and its security event. */
export function createQuarantineRepo(db: DbOrTx) {
  return {
    /** The tenant's stored restore policies, by verdict (verdicts without a row use the defaults). */
    async restorePoliciesOf(
      tenantId: string,
      tx?: DbOrTx,
    ): Promise<Partial<Record<Verdict, StoredRestorePolicy>>> {
      const rows = await (tx ?? db)
        .select({
          verdict: restorePolicies.verdict,
          mode: restorePolicies.mode,
          identificationRequired: restorePolicies.identificationRequired,
        })
        .from(restorePolicies)
        .where(eq(restorePolicies.tenantId, tenantId));
      return Object.fromEntries(
        rows.map((r) => [r.verdict, { mode: r.mode, identificationRequired: r.identificationRequired }]),
      );
    },

    async setRestorePolicy(
      tenantId: string,
      verdict: Verdict,
      policy: StoredRestorePolicy,
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db)
        .insert(restorePolicies)
        .values({ tenantId, verdict, ...policy })
        .onConflictDoUpdate({
          target: [restorePolicies.tenantId, restorePolicies.verdict],
          set: { ...policy, updatedAt: new Date() },
        });
    },

    async insertMessage(values: NewHeldMessage, tx?: DbOrTx): Promise<HeldMessageRow> {
      const [row] = await (tx ?? db).insert(quarantineMessages).values(values).returning();
      return row!;
    },

    async insertAttachments(values: NewHeldAttachment[], tx?: DbOrTx): Promise<void> {
      if (values.length === 0) return;
      await (tx ?? db).insert(quarantineAttachments).values(values);
    },

    /** A one-click action the recipient is offered in the notice (report safe). */
    async insertAction(publicId: string, messageId: string, action: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(messageActions).values({ publicId, messageId, action });
    },

    async insertSecurityEvent(values: NewSecurityEvent, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(securityEvents).values(values);
    },
  };
}
export type QuarantineRepo = ReturnType<typeof createQuarantineRepo>;
