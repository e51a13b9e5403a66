import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  inboundMessages,
  mailLog,
  outbox,
  quarantineMessages,
  releases,
  restoreRequests,
  securityEvents,
  users,
} from '../../db/schema.ts';
import { listed } from '../mail-explorer/mail-explorer.repo.ts';

const logged = {
  ...listed,
  inboundId: mailLog.inboundId,
  details: mailLog.details,
};

/** What a message trace reads: one message's rows across the gateway, the outbox and quarantine. */
export function createMessageTraceRepo(db: DbOrTx) {
  return {
    /** A Mail Explorer row of the tenant, by its id or by its held copy's id. */
    async logEntry(tenantId: string, by: { id: string } | { heldId: string }) {
      const [row] = await db
        .select(logged)
        .from(mailLog)
        .where(
          and(
            eq(mailLog.tenantId, tenantId),
            'id' in by ? eq(mailLog.id, by.id) : eq(mailLog.quarantineMessageId, by.heldId),
          ),
        )
        .limit(1);
      return row ?? null;
    },

    /** The inbound message a row came from: when it was processed, and its failures. */
    async inbound(id: string) {
      const [row] = await db
        .select({
          processedAt: inboundMessages.processedAt,
          attempts: inboundMessages.attempts,
          lastError: inboundMessages.lastError,
          status: inboundMessages.status,
        })
        .from(inboundMessages)
        .where(eq(inboundMessages.id, id));
      return row ?? null;
    },

    /** A held message of the tenant. */
    async held(tenantId: string, id: string) {
      const [row] = await db
        .select({
          id: quarantineMessages.id,
          receivedAt: quarantineMessages.receivedAt,
          createdAt: quarantineMessages.createdAt,
          sender: quarantineMessages.sender,
          senderName: quarantineMessages.senderName,
          recipient: quarantineMessages.recipient,
          subject: quarantineMessages.subject,
          messageIdHeader: quarantineMessages.messageIdHeader,
          verdict: quarantineMessages.verdict,
          reasons: quarantineMessages.reasons,
          state: quarantineMessages.state,
          silent: quarantineMessages.silent,
          size: quarantineMessages.size,
        })
        .from(quarantineMessages)
        .where(and(eq(quarantineMessages.tenantId, tenantId), eq(quarantineMessages.id, id)));
      return row ?? null;
    },

    /** The held message's restore requests, releases and security events, oldest first. */
    async heldHistory(tenantId: string, messageId: string) {
      const [requests, released, events] = await Promise.all([
        db
          .select({
            createdAt: restoreRequests.createdAt,
            kind: restoreRequests.kind,
            mode: restoreRequests.mode,
            requestedBy: restoreRequests.requestedBy,
            commentary: restoreRequests.commentary,
            status: restoreRequests.status,
            decidedAt: restoreRequests.decidedAt,
            declineReason: restoreRequests.declineReason,
          })
          .from(restoreRequests)
          .where(and(eq(restoreRequests.tenantId, tenantId), eq(restoreRequests.messageId, messageId)))
          .orderBy(asc(restoreRequests.createdAt)),
        db
          .select({
            createdAt: releases.createdAt,
            kind: releases.kind,
            // An admin's release records their id, a recipient's their address: show an address.
            releasedBy: sql<string>`coalesce(${users.email}, ${releases.releasedBy})`,
            outboxId: releases.outboxId,
          })
          .from(releases)
          .leftJoin(users, sql`${users.id}::text = ${releases.releasedBy}`)
          .where(eq(releases.messageId, messageId))
          .orderBy(asc(releases.createdAt)),
        db
          .select({
            createdAt: securityEvents.createdAt,
            engine: securityEvents.engine,
            verdict: securityEvents.verdict,
            description: securityEvents.description,
            severity: securityEvents.severity,
          })
          .from(securityEvents)
          .where(and(eq(securityEvents.tenantId, tenantId), eq(securityEvents.messageId, messageId)))
          .orderBy(asc(securityEvents.createdAt)),
      ]);
      return { requests, released, events };
    },

    /** The tenant's outbox rows by idempotency key or id: the message's deliveries and releases. */
    async deliveries(tenantId: string, keys: string[], ids: string[]) {
      const which = [
        ...(keys.length ? [inArray(outbox.idempotencyKey, keys)] : []),
        ...(ids.length ? [inArray(outbox.id, ids)] : []),
      ];
      if (which.length === 0) return [];
      return db
        .select({
          id: outbox.id,
          kind: outbox.kind,
          toAddress: outbox.toAddress,
          status: outbox.status,
          attempts: outbox.attempts,
          lastError: outbox.lastError,
          createdAt: outbox.createdAt,
          sentAt: outbox.sentAt,
          nextAttemptAt: outbox.nextAttemptAt,
        })
        .from(outbox)
        .where(and(eq(outbox.tenantId, tenantId), or(...which)))
        .orderBy(asc(outbox.createdAt));
    },
  };
}
export type MessageTraceRepo = ReturnType<typeof createMessageTraceRepo>;
