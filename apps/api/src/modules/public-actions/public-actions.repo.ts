import type { RestoreKind, RestoreMode } from '@moat/contracts/quarantine';
import { and, eq, gt, inArray, isNull, ne, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import {
  messageActions,
  quarantineAttachments,
  quarantineMessages,
  releases,
  restoreRequests,
  securityEvents,
} from '../../db/schema.ts';

/**
 * What the public calls read of a held message: never its raw bytes (up to 25 MB), which are
 * read only to send it (`rawOf`).
 */
export interface PublicMessage {
  id: string;
  publicId: string;
  saasType: string;
  tenantId: string;
  recipient: string;
  /** The sender's address as the message gave it (the attacker's words: text only). */
  sender: string;
  subject: string;
  verdict: string;
  state: string;
  expiresAt: Date;
}
const publicMessageColumns = {
  id: quarantineMessages.id,
  publicId: quarantineMessages.publicId,
  saasType: quarantineMessages.saasType,
  tenantId: quarantineMessages.tenantId,
  recipient: quarantineMessages.recipient,
  sender: quarantineMessages.sender,
  subject: quarantineMessages.subject,
  verdict: quarantineMessages.verdict,
  state: quarantineMessages.state,
  expiresAt: quarantineMessages.expiresAt,
};

/** Still actionable: the link's type, not deleted, not expired at `now`. */
const actionable = (type: string, now: Date) =>
  and(
    eq(quarantineMessages.saasType, type),
    ne(quarantineMessages.state, 'deleted'),
    gt(quarantineMessages.expiresAt, now),
  );

export function createPublicActionsRepo(db: DbOrTx) {
  return {
    /** Run `work` in one transaction; the methods take its `tx`. */
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** The message of a `msg` link, whatever its state (the caller checks it can still be acted on). */
    async messageByLink(publicId: string, tx?: DbOrTx): Promise<PublicMessage | null> {
      const [row] = await (tx ?? db)
        .select(publicMessageColumns)
        .from(quarantineMessages)
        .where(eq(quarantineMessages.publicId, publicId));
      return row ?? null;
    },

    /** The action of an action page's `id` with its message, if that can still be acted on at `now`. */
    async liveAction(
      type: string,
      publicId: string,
      now: Date,
      tx?: DbOrTx,
    ): Promise<{ actionId: string; action: string; message: PublicMessage } | null> {
      const [row] = await (tx ?? db)
        .select({ actionId: messageActions.id, action: messageActions.action, message: publicMessageColumns })
        .from(messageActions)
        .innerJoin(quarantineMessages, eq(quarantineMessages.id, messageActions.messageId))
        .where(and(eq(messageActions.publicId, publicId), actionable(type, now)));
      return row ?? null;
    },

    /** Whether the message was released as `kind`, and the status of its latest request of that kind. */
    async restoreStateOf(
      messageId: string,
      kind: string,
      tx?: DbOrTx,
    ): Promise<{ released: boolean; requestStatus: string | null }> {
      const [row] = rowsOf<{ released: boolean; status: string | null }>(
        await (tx ?? db).execute(sql`
          select
            exists (select 1 from ${releases} where ${releases.messageId} = ${messageId} and ${releases.kind} = ${kind}) as released,
            (select ${restoreRequests.status} from ${restoreRequests}
              where ${restoreRequests.messageId} = ${messageId} and ${restoreRequests.kind} = ${kind}
              order by ${restoreRequests.createdAt} desc limit 1) as status`),
      );
      return { released: row?.released === true, requestStatus: row?.status ?? null };
    },

    /**
     * Lock the message's row for this transaction and read its state (null when it is gone): a
     * release and a delete (an admin's, a confirmed report's, the purge) take turns on the row,
     * so a message deleted while its release was under way is never sent.
     */
    async lockState(messageId: string, tx: DbOrTx): Promise<string | null> {
      const [row] = await tx
        .select({ state: quarantineMessages.state })
        .from(quarantineMessages)
        .where(eq(quarantineMessages.id, messageId))
        .for('update');
      return row?.state ?? null;
    },

    /** Claim the release of a message as `kind`, once: the release's id, or null if it was released already. */
    async claimRelease(messageId: string, kind: string, by: string, tx?: DbOrTx): Promise<string | null> {
      const [inserted] = await (tx ?? db)
        .insert(releases)
        .values({ messageId, kind, releasedBy: by })
        .onConflictDoNothing()
        .returning({ id: releases.id });
      return inserted?.id ?? null;
    },

    /** The message's raw bytes: only to send it. */
    /** What the warning of a released message is made of: its verdict and the engines' reasons. */
    async verdictOf(messageId: string, tx?: DbOrTx): Promise<{ verdict: string; reasons: string[] } | null> {
      const [row] = await (tx ?? db)
        .select({ verdict: quarantineMessages.verdict, reasons: quarantineMessages.reasons })
        .from(quarantineMessages)
        .where(eq(quarantineMessages.id, messageId));
      return row ?? null;
    },

    async rawOf(messageId: string, tx?: DbOrTx): Promise<Uint8Array> {
      const [row] = await (tx ?? db)
        .select({ raw: quarantineMessages.raw })
        .from(quarantineMessages)
        .where(eq(quarantineMessages.id, messageId));
      if (!row) throw new Error(`quarantine message ${messageId} is gone`);
      return row.raw;
    },

    /**
     * Record a release as sent: its outbox mail, the message restored with its attachments
     * delivered, and the restore request done (`requestId`, else every open one of that kind).
     */
    async markReleased(
      release: {
        id: string;
        outboxId: string;
        messageId: string;
        kind: RestoreKind;
        requestId?: string;
        at: Date;
      },
      tx?: DbOrTx,
    ): Promise<void> {
      const q = tx ?? db;
      await q.update(releases).set({ outboxId: release.outboxId }).where(eq(releases.id, release.id));
      await q
        .update(quarantineMessages)
        .set({ state: 'restored' })
        .where(and(eq(quarantineMessages.id, release.messageId), ne(quarantineMessages.state, 'deleted')));
      await q
        .update(quarantineAttachments)
        .set({ state: 'delivered' })
        .where(eq(quarantineAttachments.messageId, release.messageId));
      await q
        .update(restoreRequests)
        .set({ status: 'restored', updatedAt: release.at })
        .where(
          release.requestId
            ? eq(restoreRequests.id, release.requestId)
            : and(
                eq(restoreRequests.messageId, release.messageId),
                eq(restoreRequests.kind, release.kind),
                inArray(restoreRequests.status, ['requested', 'approved']),
              ),
        );
    },

    /** Mark an action performed, once: whether this call did. */
    async performAction(actionId: string, at: Date, tx?: DbOrTx): Promise<boolean> {
      const [done] = await (tx ?? db)
        .update(messageActions)
        .set({ performedAt: at })
        .where(and(eq(messageActions.id, actionId), isNull(messageActions.performedAt)))
        .returning({ id: messageActions.id });
      return done !== undefined;
    },

    async insertSecurityEvent(event: typeof securityEvents.$inferInsert, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(securityEvents).values(event);
    },

    /** Store a recipient's restore request: its id. */
    async insertRestoreRequest(
      request: {
        tenantId: string;
        messageId: string;
        kind: RestoreKind;
        requestedBy: string;
        commentary: string;
        mode: RestoreMode;
        status: string;
      },
      tx?: DbOrTx,
    ): Promise<string> {
      const [row] = await (tx ?? db)
        .insert(restoreRequests)
        .values(request)
        .returning({ id: restoreRequests.id });
      return row!.id;
    },
  };
}
export type PublicActionsRepo = ReturnType<typeof createPublicActionsRepo>;
