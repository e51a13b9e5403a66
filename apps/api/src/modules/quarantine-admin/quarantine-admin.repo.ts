import type { Verdict } from '@moat/contracts/quarantine';
import { and, count, desc, eq, ilike, inArray, lte, ne, or, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  quarantineAttachments,
  quarantineMessages,
  restoreRequests,
  senderLists,
  tenantDomains,
  tenants,
} from '../../db/schema.ts';

/** What the admin's lists show of a held message: never its raw bytes (read only to preview it). */
const messageColumns = {
  id: quarantineMessages.id,
  publicId: quarantineMessages.publicId,
  tenantId: quarantineMessages.tenantId,
  saasType: quarantineMessages.saasType,
  recipient: quarantineMessages.recipient,
  sender: quarantineMessages.sender,
  senderName: quarantineMessages.senderName,
  subject: quarantineMessages.subject,
  receivedAt: quarantineMessages.receivedAt,
  verdict: quarantineMessages.verdict,
  reasons: quarantineMessages.reasons,
  state: quarantineMessages.state,
  failedInboundId: quarantineMessages.failedInboundId,
  size: quarantineMessages.size,
  feedback: quarantineMessages.feedback,
  feedbackBy: quarantineMessages.feedbackBy,
  feedbackAt: quarantineMessages.feedbackAt,
  retractedAt: quarantineMessages.retractedAt,
};
export interface HeldMessage {
  id: string;
  publicId: string;
  tenantId: string;
  saasType: string;
  recipient: string;
  sender: string;
  senderName: string;
  subject: string;
  receivedAt: Date;
  verdict: string;
  reasons: string[];
  state: string;
  failedInboundId: string | null;
  size: number;
  feedback: string | null;
  feedbackBy: string | null;
  feedbackAt: Date | null;
  /** Pulled back from the recipient's mailbox after delivery (retraction); null: held at the door. */
  retractedAt: Date | null;
}

/** Rows deleted per statement by the purge job (a long backlog is deleted in several). */
const PURGE_BATCH = 500;

const requestColumns = {
  id: restoreRequests.id,
  kind: restoreRequests.kind,
  requestedBy: restoreRequests.requestedBy,
  commentary: restoreRequests.commentary,
  mode: restoreRequests.mode,
  status: restoreRequests.status,
  createdAt: restoreRequests.createdAt,
  decidedAt: restoreRequests.decidedAt,
  declineReason: restoreRequests.declineReason,
};
export interface RestoreRequestRow {
  id: string;
  kind: string;
  requestedBy: string;
  commentary: string;
  mode: string;
  status: string;
  createdAt: Date;
  decidedAt: Date | null;
  declineReason: string | null;
}

export type AttachmentRow = typeof quarantineAttachments.$inferSelect;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** A quick filter over subject, sender and recipient (substring, case-insensitive). */
function searchOf(q: string | undefined): SQL | undefined {
  if (!q) return undefined;
  const like = `%${escapeLike(q)}%`;
  return or(
    ilike(quarantineMessages.subject, like),
    ilike(quarantineMessages.sender, like),
    ilike(quarantineMessages.recipient, like),
  );
}

const inTenant = (tenantId: string, id: string) =>
  and(eq(quarantineMessages.id, id), eq(quarantineMessages.tenantId, tenantId));

export function createQuarantineAdminRepo(db: DbOrTx) {
  return {
    /** Run `work` in one transaction; the methods take its `tx`. */
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** A page of the tenant's restore requests, newest first, with their messages; and how many match. */
    async listRequests(
      tenantId: string,
      query: { q?: string; status?: string; limit: number; offset: number },
      tx?: DbOrTx,
    ): Promise<{ rows: Array<{ request: RestoreRequestRow; message: HeldMessage }>; total: number }> {
      const where = and(
        eq(restoreRequests.tenantId, tenantId),
        query.status ? eq(restoreRequests.status, query.status) : undefined,
        searchOf(query.q),
      );
      const rows = await (tx ?? db)
        .select({ request: requestColumns, message: messageColumns })
        .from(restoreRequests)
        .innerJoin(quarantineMessages, eq(quarantineMessages.id, restoreRequests.messageId))
        .where(where)
        .orderBy(desc(restoreRequests.createdAt))
        .limit(query.limit)
        .offset(query.offset);
      const [total] = await (tx ?? db)
        .select({ n: count() })
        .from(restoreRequests)
        .innerJoin(quarantineMessages, eq(quarantineMessages.id, restoreRequests.messageId))
        .where(where);
      return { rows, total: Number(total?.n ?? 0) };
    },

    /** A page of the tenant's held messages (by default those still held or restored), newest first; and how many match. */
    async listMessages(
      tenantId: string,
      query: {
        q?: string;
        verdict?: Verdict;
        state?: string;
        /** Only the messages held for this address (a user's own quarantine). */
        recipient?: string;
        limit: number;
        offset: number;
      },
      tx?: DbOrTx,
    ): Promise<{ rows: HeldMessage[]; total: number }> {
      const where = and(
        eq(quarantineMessages.tenantId, tenantId),
        query.recipient ? eq(quarantineMessages.recipient, query.recipient) : undefined,
        query.verdict ? eq(quarantineMessages.verdict, query.verdict) : undefined,
        query.state
          ? eq(quarantineMessages.state, query.state)
          : inArray(quarantineMessages.state, ['quarantined', 'attachments_removed', 'restored']),
        searchOf(query.q),
      );
      const rows = await (tx ?? db)
        .select(messageColumns)
        .from(quarantineMessages)
        .where(where)
        .orderBy(desc(quarantineMessages.receivedAt))
        .limit(query.limit)
        .offset(query.offset);
      const [total] = await (tx ?? db).select({ n: count() }).from(quarantineMessages).where(where);
      return { rows, total: Number(total?.n ?? 0) };
    },

    async attachmentsOf(messageIds: string[], tx?: DbOrTx): Promise<AttachmentRow[]> {
      if (messageIds.length === 0) return [];
      return (tx ?? db)
        .select()
        .from(quarantineAttachments)
        .where(inArray(quarantineAttachments.messageId, messageIds));
    },

    /** One of the tenant's restore requests with its message. */
    async requestIn(
      tenantId: string,
      id: string,
      tx?: DbOrTx,
    ): Promise<{ request: RestoreRequestRow; message: HeldMessage } | null> {
      const [row] = await (tx ?? db)
        .select({ request: requestColumns, message: messageColumns })
        .from(restoreRequests)
        .innerJoin(quarantineMessages, eq(quarantineMessages.id, restoreRequests.messageId))
        .where(and(eq(restoreRequests.id, id), eq(restoreRequests.tenantId, tenantId)));
      return row ?? null;
    },

    /** One of the tenant's held messages. */
    async messageIn(tenantId: string, id: string, tx?: DbOrTx): Promise<HeldMessage | null> {
      const [row] = await (tx ?? db)
        .select(messageColumns)
        .from(quarantineMessages)
        .where(inTenant(tenantId, id));
      return row ?? null;
    },

    /** One of the tenant's held messages with its raw bytes: only to preview it. */
    /** Whose a held message is and its link id (the recipients' pages find it by that). */
    async ownerOf(
      tenantId: string,
      id: string,
      tx?: DbOrTx,
    ): Promise<{ publicId: string; recipient: string; state: string } | null> {
      const [row] = await (tx ?? db)
        .select({
          publicId: quarantineMessages.publicId,
          recipient: quarantineMessages.recipient,
          state: quarantineMessages.state,
        })
        .from(quarantineMessages)
        .where(inTenant(tenantId, id));
      return row ?? null;
    },

    async messageWithRawIn(
      tenantId: string,
      id: string,
      tx?: DbOrTx,
    ): Promise<(HeldMessage & { raw: Uint8Array; rawSha256: string }) | null> {
      const [row] = await (tx ?? db)
        .select({ ...messageColumns, raw: quarantineMessages.raw, rawSha256: quarantineMessages.rawSha256 })
        .from(quarantineMessages)
        .where(inTenant(tenantId, id));
      return row ?? null;
    },

    /** Move a request still open to `decision`: whether this call did (a racing decision loses whole). */
    async decide(
      id: string,
      decision: {
        status: 'approved' | 'declined';
        decidedBy: string | null;
        at: Date;
        declineReason?: string;
      },
      tx?: DbOrTx,
    ): Promise<boolean> {
      const [taken] = await (tx ?? db)
        .update(restoreRequests)
        .set({
          status: decision.status,
          decidedBy: decision.decidedBy,
          decidedAt: decision.at,
          updatedAt: decision.at,
          ...(decision.declineReason !== undefined ? { declineReason: decision.declineReason } : {}),
        })
        .where(and(eq(restoreRequests.id, id), eq(restoreRequests.status, 'requested')))
        .returning({ id: restoreRequests.id });
      return taken !== undefined;
    },

    /**
     * Mark one of the tenant's messages deleted and drop its raw bytes (nobody can read or
     * restore it any more; the record and its digest stay): whether it exists.
     */
    async markDeleted(tenantId: string, id: string, tx?: DbOrTx): Promise<boolean> {
      const [row] = await (tx ?? db)
        .update(quarantineMessages)
        .set({ state: 'deleted', raw: new Uint8Array(0) })
        .where(inTenant(tenantId, id))
        .returning({ id: quarantineMessages.id });
      return row !== undefined;
    },

    /** Several of the tenant's held messages at once (ids of other tenants are simply absent). */
    async messagesIn(tenantId: string, ids: string[], tx?: DbOrTx): Promise<HeldMessage[]> {
      if (ids.length === 0) return [];
      return (tx ?? db)
        .select(messageColumns)
        .from(quarantineMessages)
        .where(and(eq(quarantineMessages.tenantId, tenantId), inArray(quarantineMessages.id, ids)));
    },

    /** Record an admin's spam / not-spam feedback on one of the tenant's messages not deleted: whether it is one. */
    async setFeedback(
      tenantId: string,
      id: string,
      feedback: { value: string; by: string; at: Date },
      tx?: DbOrTx,
    ): Promise<boolean> {
      const [row] = await (tx ?? db)
        .update(quarantineMessages)
        .set({ feedback: feedback.value, feedbackBy: feedback.by, feedbackAt: feedback.at })
        .where(and(inTenant(tenantId, id), ne(quarantineMessages.state, 'deleted')))
        .returning({ id: quarantineMessages.id });
      return row !== undefined;
    },

    /** The tenant's own (lower-case) domains. */
    async domainsOf(tenantId: string, tx?: DbOrTx): Promise<string[]> {
      const rows = await (tx ?? db)
        .select({ domain: tenantDomains.domain })
        .from(tenantDomains)
        .where(eq(tenantDomains.tenantId, tenantId));
      return rows.map((r) => r.domain);
    },

    /** Add a block entry (a lower-case address or domain) to the tenant's sender list: whether it is new. */
    async addBlockEntry(tenantId: string, value: string, createdBy: string, tx?: DbOrTx): Promise<boolean> {
      const inserted = await (tx ?? db)
        .insert(senderLists)
        // Who added it and from where, as the Exceptions screen and the trace show it.
        .values({ tenantId, list: 'block', value, createdBy, comment: 'Blocked from a held message' })
        // An expired entry of the same value comes back to life (else the block would silently do nothing).
        .onConflictDoUpdate({
          target: [senderLists.tenantId, senderLists.list, senderLists.value],
          set: { expiresAt: null },
          setWhere: sql`${senderLists.expiresAt} is not null`,
        })
        .returning({ value: senderLists.value });
      return inserted.length > 0;
    },

    /** Days the tenant keeps held mail. */
    async retentionOf(tenantId: string, tx?: DbOrTx): Promise<number | null> {
      const [row] = await (tx ?? db)
        .select({ days: tenants.retentionDays })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      return row?.days ?? null;
    },

    /**
     * Set the tenant's retention and move the expiry of every message it holds to match (the
     * purge job and the recipients' links read `expires_at`).
     */
    async setRetention(tenantId: string, days: number, tx?: DbOrTx): Promise<void> {
      const q = tx ?? db;
      await q.update(tenants).set({ retentionDays: days }).where(eq(tenants.id, tenantId));
      await q
        .update(quarantineMessages)
        .set({ expiresAt: sql`${quarantineMessages.receivedAt} + make_interval(days => ${days}::int)` })
        .where(eq(quarantineMessages.tenantId, tenantId));
    },

    /**
     * Delete held messages whose expiry is at or before `now` (attachments, requests and
     * releases go with them; the raw bytes are in the row): how many per tenant.
     */
    async purgeExpired(now: Date, tx?: DbOrTx): Promise<Map<string, number>> {
      const q = tx ?? db;
      const perTenant = new Map<string, number>();
      for (;;) {
        const due = q
          .select({ id: quarantineMessages.id })
          .from(quarantineMessages)
          .where(lte(quarantineMessages.expiresAt, now))
          .limit(PURGE_BATCH);
        const gone = await q
          .delete(quarantineMessages)
          .where(inArray(quarantineMessages.id, due))
          .returning({ tenantId: quarantineMessages.tenantId });
        for (const row of gone) perTenant.set(row.tenantId, (perTenant.get(row.tenantId) ?? 0) + 1);
        if (gone.length < PURGE_BATCH) return perTenant;
      }
    },
  };
}
export type QuarantineAdminRepo = ReturnType<typeof createQuarantineAdminRepo>;
