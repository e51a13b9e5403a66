import type {
  CopyStatus,
  RetractionAction,
  RetractionTrigger,
  RetractionVerdict,
} from '@moat/contracts/retraction';
import { and, asc, desc, eq, gte, inArray, isNull, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { rowsOf } from '../../db/client.ts';
import {
  deliveredContents,
  mailboxConnections,
  mailLog,
  outbox,
  quarantineAttachments,
  quarantineMessages,
  retractionCopies,
  retractions,
} from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

/** Mail Explorer actions whose message reached the recipient's mailbox. */
export const DELIVERED_ACTIONS = ['delivered', 'delivered_banner', 'attachments_removed'] as const;

export type ConnectionRow = typeof mailboxConnections.$inferSelect;
export type RetractionRow = typeof retractions.$inferSelect;
export type CopyRow = typeof retractionCopies.$inferSelect;

/** A delivered copy: the Mail Explorer row of one message and recipient. */
export interface DeliveredCopy {
  mailLogId: string;
  inboundId: string;
  recipient: string;
  sender: string;
  subject: string;
  messageIdHeader: string | null;
  receivedAt: Date;
}

const deliveredColumns = {
  mailLogId: mailLog.id,
  inboundId: mailLog.inboundId,
  recipient: mailLog.recipient,
  sender: mailLog.sender,
  subject: mailLog.subject,
  messageIdHeader: mailLog.messageIdHeader,
  receivedAt: mailLog.receivedAt,
};

/** What a search of delivered mail asks, checked and normalised by the service. */
export interface DeliveredFilter {
  /** An exact address, or a domain: every address of it and of its subdomains. */
  senderAddress?: string;
  senderDomain?: string;
  subject?: string;
  url?: string;
  host?: string;
  sha256?: string;
  from?: Date;
  to?: Date;
  messageIdHeader?: string;
  inboundId?: string;
}

/**
 * The Mail Explorer row's columns as a subquery names them: written out, since an unqualified
 * column inside a subquery is the subquery's own when its table has one of that name.
 */
const ML = {
  tenantId: sql.raw('"mail_log"."tenant_id"'),
  inboundId: sql.raw('"mail_log"."inbound_id"'),
  recipient: sql.raw('"mail_log"."recipient"'),
};

const delivered = (tenantId: string) => [
  eq(mailLog.tenantId, tenantId),
  inArray(mailLog.action, [...DELIVERED_ACTIONS]),
];

function whereOf(tenantId: string, f: DeliveredFilter): SQL[] {
  const where = delivered(tenantId);
  if (f.inboundId) where.push(eq(mailLog.inboundId, f.inboundId));
  if (f.messageIdHeader) {
    const bare = f.messageIdHeader.replace(/^<|>$/g, '');
    where.push(inArray(mailLog.messageIdHeader, [bare, `<${bare}>`]));
  }
  if (f.senderAddress) where.push(sql`lower(${mailLog.sender}) = ${f.senderAddress}`);
  if (f.senderDomain) {
    where.push(
      sql`(lower(regexp_replace(${mailLog.sender}, '^.*@', '')) = ${f.senderDomain}
        or lower(regexp_replace(${mailLog.sender}, '^.*@', '')) like ${`%.${f.senderDomain.replace(/[%_\\]/g, '\\$&')}`})`,
    );
  }
  if (f.subject) where.push(sql`${mailLog.subject} ilike ${containsPattern(f.subject)}`);
  if (f.from) where.push(gte(mailLog.receivedAt, f.from));
  if (f.to) where.push(lt(mailLog.receivedAt, f.to));
  const contents: SQL[] = [];
  if (f.url) contents.push(sql`dc.urls @> ${JSON.stringify([f.url])}::jsonb`);
  if (f.host) contents.push(sql`dc.hosts @> ${JSON.stringify([f.host])}::jsonb`);
  if (f.sha256) contents.push(sql`dc.sha256s @> ${JSON.stringify([f.sha256])}::jsonb`);
  if (contents.length > 0) {
    where.push(
      sql`exists (select 1 from ${deliveredContents} dc where dc.inbound_id = ${ML.inboundId}
        and dc.tenant_id = ${ML.tenantId} and ${sql.join(contents, sql` and `)})`,
    );
  }
  return where;
}

export interface RetractionMeta {
  trigger: RetractionTrigger;
  triggerRef: string | null;
  verdict: RetractionVerdict;
  reason: string;
  requestedBy: string;
}

async function joinCopies(tx: DbOrTx, tenantId: string, retractionId: string, copies: DeliveredCopy[]) {
  let joined = 0;
  for (let i = 0; i < copies.length; i += 500) {
    const rows = await tx
      .insert(retractionCopies)
      .values(
        copies.slice(i, i + 500).map((c) => ({
          tenantId,
          retractionId,
          mailLogId: c.mailLogId,
          inboundId: c.inboundId,
          recipient: c.recipient,
          messageIdHeader: c.messageIdHeader,
          subject: c.subject,
        })),
      )
      .onConflictDoUpdate({
        target: [retractionCopies.tenantId, retractionCopies.inboundId, retractionCopies.recipient],
        set: { retractionId, status: 'pending', action: null, found: [], error: null, updatedAt: sql`now()` },
        setWhere: sql`${retractionCopies.status} in ('not_found', 'failed', 'skipped')`,
      })
      .returning({ id: retractionCopies.id });
    joined += rows.length;
  }
  return joined;
}

export function createRetractionRepo(db: DbOrTx) {
  return {
    transaction<T>(fn: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction(fn);
    },

    async connection(tenantId: string, tx?: DbOrTx): Promise<ConnectionRow | null> {
      const [row] = await (tx ?? db)
        .select()
        .from(mailboxConnections)
        .where(eq(mailboxConnections.tenantId, tenantId));
      return row ?? null;
    },

    async saveConnection(
      tenantId: string,
      values: Omit<typeof mailboxConnections.$inferInsert, 'tenantId'>,
      tx?: DbOrTx,
    ): Promise<ConnectionRow> {
      const [row] = await (tx ?? db)
        .insert(mailboxConnections)
        .values({ tenantId, ...values })
        .onConflictDoUpdate({ target: mailboxConnections.tenantId, set: values })
        .returning();
      return row!;
    },

    async recordTest(tenantId: string, at: Date, ok: boolean, message: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .update(mailboxConnections)
        .set({ lastTestAt: at, lastTestOk: ok, lastTestMessage: message })
        .where(eq(mailboxConnections.tenantId, tenantId));
    },

    /**
     * Delivered mail of the tenant whose bytes have not been read for links and attachments yet
     * (among the rows `filter` bounds by date), one row per message: its first recipient's copy.
     */
    async unreadContents(
      tenantId: string,
      filter: Pick<DeliveredFilter, 'from' | 'to'>,
      limit: number,
    ): Promise<Array<{ inboundId: string; raw: Uint8Array | null }>> {
      const rows = rowsOf<{ inbound_id: string; raw: Uint8Array | null }>(
        await db.execute(sql`
          select distinct on (l.inbound_id) l.inbound_id, o.raw
          from ${mailLog} l
          left join ${outbox} o on o.idempotency_key = l.inbound_id::text || ':' || l.recipient
            and o.tenant_id = l.tenant_id
          where l.tenant_id = ${tenantId}
            and l.action in ('delivered', 'delivered_banner', 'attachments_removed')
            ${filter.from ? sql`and l.received_at >= ${filter.from}` : sql``}
            ${filter.to ? sql`and l.received_at < ${filter.to}` : sql``}
            and not exists (select 1 from ${deliveredContents} dc where dc.inbound_id = l.inbound_id)
          order by l.inbound_id, o.raw is null
          limit ${limit}`),
      );
      return rows.map((r) => ({ inboundId: r.inbound_id, raw: r.raw ? new Uint8Array(r.raw) : null }));
    },

    async saveContents(
      rows: Array<{
        inboundId: string;
        tenantId: string;
        urls: string[];
        hosts: string[];
        sha256s: string[];
      }>,
    ): Promise<void> {
      if (rows.length === 0) return;
      await db.insert(deliveredContents).values(rows).onConflictDoNothing();
    },

    /** Delivered copies matching `filter`, oldest first, at most `limit`, and how many match in all. */
    async delivered(
      tenantId: string,
      filter: DeliveredFilter,
      limit: number,
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: Array<DeliveredCopy & { retracted: boolean }> }> {
      const q = tx ?? db;
      const where = and(...whereOf(tenantId, filter));
      const retracted = sql<boolean>`exists (select 1 from ${retractionCopies} rc
        where rc.tenant_id = ${ML.tenantId} and rc.inbound_id = ${ML.inboundId}
          and rc.recipient = ${ML.recipient} and rc.status in ('pending', 'retracted'))`;
      const [rows, [total]] = await Promise.all([
        q
          .select({ ...deliveredColumns, retracted })
          .from(mailLog)
          .where(where)
          .orderBy(asc(mailLog.receivedAt), asc(mailLog.id))
          .limit(limit),
        q
          .select({
            n: sql<number>`count(*)::int`,
            done: sql<number>`count(*) filter (where ${retracted})::int`,
          })
          .from(mailLog)
          .where(where),
      ]);
      return { total: Number(total?.n ?? 0), rows };
    },

    async countRetracted(tenantId: string, filter: DeliveredFilter, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({
          n: sql<number>`count(*)::int`,
        })
        .from(mailLog)
        .where(
          and(
            ...whereOf(tenantId, filter),
            sql`exists (select 1 from ${retractionCopies} rc where rc.tenant_id = ${ML.tenantId}
              and rc.inbound_id = ${ML.inboundId} and rc.recipient = ${ML.recipient}
              and rc.status in ('pending', 'retracted'))`,
          ),
        );
      return Number(row?.n ?? 0);
    },

    async mailLogRow(tenantId: string, id: string, tx?: DbOrTx) {
      const [row] = await (tx ?? db)
        .select({ ...deliveredColumns, action: mailLog.action })
        .from(mailLog)
        .where(and(eq(mailLog.tenantId, tenantId), eq(mailLog.id, id)));
      return row ?? null;
    },

    /**
     * A retraction of `copies`, queued: each copy joins it unless it is retracted already or
     * being retracted (a copy not found, not reached or skipped before is tried again). Null when
     * no copy is left to retract (nothing is stored then).
     */
    async queue(
      tenantId: string,
      meta: RetractionMeta,
      copies: DeliveredCopy[],
    ): Promise<{ retraction: RetractionRow; copies: number } | null> {
      if (copies.length === 0) return null;
      return db.transaction(async (tx) => {
        const [retraction] = await tx
          .insert(retractions)
          .values({ tenantId, ...meta })
          .returning();
        const joined = await joinCopies(tx, tenantId, retraction!.id, copies);
        if (joined === 0) {
          await tx.delete(retractions).where(eq(retractions.id, retraction!.id));
          return null;
        }
        return { retraction: retraction!, copies: joined };
      });
    },

    /** A trigger's retraction, queued with its search: the job finds its copies. */
    async queueSearch(
      tenantId: string,
      meta: RetractionMeta,
      search: Record<string, unknown>,
    ): Promise<RetractionRow> {
      const [row] = await db
        .insert(retractions)
        .values({ tenantId, ...meta, search, resolved: false })
        .returning();
      return row!;
    },

    /** The copies a trigger's search found join its retraction; how many joined. */
    async resolve(tenantId: string, retractionId: string, copies: DeliveredCopy[]): Promise<number> {
      return db.transaction(async (tx) => {
        const joined = await joinCopies(tx, tenantId, retractionId, copies);
        await tx.update(retractions).set({ resolved: true }).where(eq(retractions.id, retractionId));
        return joined;
      });
    },

    /** A retraction that has nothing to do (its search found no copy left): gone. */
    async discard(id: string): Promise<void> {
      await db.delete(retractions).where(eq(retractions.id, id));
    },

    /** The oldest retraction due (queued, or running on a lease that ran out), claimed by `owner`. */
    async claim(owner: string, now: Date, leaseUntil: Date): Promise<RetractionRow | null> {
      const [row] = await db
        .update(retractions)
        .set({
          status: 'running',
          leaseOwner: owner,
          leaseUntil,
          attempts: sql`${retractions.attempts} + 1`,
        })
        .where(
          eq(
            retractions.id,
            sql`(select id from ${retractions}
              where status = 'queued' or (status = 'running' and lease_until < ${now})
              order by created_at limit 1 for update skip locked)`,
          ),
        )
        .returning();
      return row ?? null;
    },

    async renewLease(id: string, owner: string, leaseUntil: Date): Promise<void> {
      await db
        .update(retractions)
        .set({ leaseUntil })
        .where(and(eq(retractions.id, id), eq(retractions.leaseOwner, owner)));
    },

    /** The copies of a retraction still to do, with what the Mail Explorer knows of their message. */
    async pendingCopies(retractionId: string) {
      return db
        .select({
          copy: retractionCopies,
          sender: mailLog.sender,
          senderName: mailLog.senderName,
          receivedAt: mailLog.receivedAt,
        })
        .from(retractionCopies)
        .innerJoin(mailLog, eq(mailLog.id, retractionCopies.mailLogId))
        .where(and(eq(retractionCopies.retractionId, retractionId), eq(retractionCopies.status, 'pending')))
        .orderBy(asc(retractionCopies.recipient));
    },

    /** The Message-ID of a held message (a confirmed report's). */
    async heldMessageId(tenantId: string, id: string): Promise<string | null> {
      const [row] = await db
        .select({ header: quarantineMessages.messageIdHeader })
        .from(quarantineMessages)
        .where(and(eq(quarantineMessages.tenantId, tenantId), eq(quarantineMessages.id, id)));
      return row?.header ?? null;
    },

    async settleCopy(
      id: string,
      outcome: {
        status: CopyStatus;
        action: RetractionAction | null;
        found: Array<{ folder: string; count: number }>;
        error: string | null;
        quarantineMessageId: string | null;
      },
      now: Date,
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db)
        .update(retractionCopies)
        .set({ ...outcome, updatedAt: now })
        .where(eq(retractionCopies.id, id));
    },

    async finish(id: string, owner: string, status: 'done' | 'failed', now: Date, error: string | null) {
      await db
        .update(retractions)
        .set({ status, finishedAt: now, leaseOwner: null, leaseUntil: null, lastError: error })
        .where(and(eq(retractions.id, id), eq(retractions.leaseOwner, owner)));
    },

    /** Give a claimed retraction back to the queue (this node stops; another takes it). */
    async release(id: string, owner: string): Promise<void> {
      await db
        .update(retractions)
        .set({ status: 'queued', leaseOwner: null, leaseUntil: null })
        .where(
          and(eq(retractions.id, id), eq(retractions.leaseOwner, owner), isNull(retractions.finishedAt)),
        );
    },

    /** The delivered bytes of a copy (its outbox row), or null when they are gone. */
    async deliveredRaw(tenantId: string, inboundId: string, recipient: string, tx?: DbOrTx) {
      const [row] = await (tx ?? db)
        .select({ raw: outbox.raw })
        .from(outbox)
        .where(and(eq(outbox.idempotencyKey, `${inboundId}:${recipient}`), eq(outbox.tenantId, tenantId)));
      return row?.raw && row.raw.length > 0 ? Buffer.from(row.raw) : null;
    },

    async insertHeld(
      values: typeof quarantineMessages.$inferInsert,
      attachments: Array<Omit<typeof quarantineAttachments.$inferInsert, 'messageId'>>,
      tx?: DbOrTx,
    ): Promise<string> {
      const q = tx ?? db;
      const [row] = await q
        .insert(quarantineMessages)
        .values(values)
        .returning({ id: quarantineMessages.id });
      if (attachments.length > 0)
        await q.insert(quarantineAttachments).values(attachments.map((a) => ({ ...a, messageId: row!.id })));
      return row!.id;
    },

    /** Retractions with their copies counted by what became of them, newest first. */
    async list(tenantId: string, limit: number, id?: string) {
      // Qualified by hand: inside the subquery an unqualified "id" would be the copy's.
      const job = sql.raw('"retractions"."id"');
      const counted = (status: CopyStatus) =>
        sql<number>`(select count(*)::int from ${retractionCopies} rc where rc.retraction_id = ${job} and rc.status = ${status})`;
      return db
        .select({
          row: retractions,
          total: sql<number>`(select count(*)::int from ${retractionCopies} rc where rc.retraction_id = ${job})`,
          retracted: counted('retracted'),
          notFound: counted('not_found'),
          failed: counted('failed'),
          skipped: counted('skipped'),
        })
        .from(retractions)
        .where(and(eq(retractions.tenantId, tenantId), id ? eq(retractions.id, id) : undefined))
        .orderBy(desc(retractions.createdAt), desc(retractions.id))
        .limit(limit);
    },

    async copiesOf(retractionId: string): Promise<CopyRow[]> {
      return db
        .select()
        .from(retractionCopies)
        .where(eq(retractionCopies.retractionId, retractionId))
        .orderBy(asc(retractionCopies.recipient));
    },
  };
}
export type RetractionRepo = ReturnType<typeof createRetractionRepo>;
