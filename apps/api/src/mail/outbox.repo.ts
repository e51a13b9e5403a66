import { and, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.ts';
import { rowsOf } from '../db/client.ts';
import { outbox, tenants } from '../db/schema.ts';

export type OutboxRow = typeof outbox.$inferSelect;
export type NewOutboxRow = typeof outbox.$inferInsert;

/** Columns a delivery needs (everything but the bookkeeping). */
const DELIVERY_COLUMNS = {
  id: outbox.id,
  tenantId: outbox.tenantId,
  kind: outbox.kind,
  fromName: outbox.fromName,
  fromAddress: outbox.fromAddress,
  toAddress: outbox.toAddress,
  subject: outbox.subject,
  text: outbox.text,
  html: outbox.html,
  raw: outbox.raw,
  attempts: outbox.attempts,
  envelopeFrom: outbox.envelopeFrom,
  createdAt: outbox.createdAt,
} as const;
export type DeliveryRow = Pick<OutboxRow, keyof typeof DELIVERY_COLUMNS>;

/**
 * The outbox's SQL. A mail is claimed before it is sent (`FOR UPDATE SKIP LOCKED`, owner node,
 * lease expiry), so several nodes never send one mail at once, and mail a dead node was sending
 * is taken over by any node once its lease expires; nothing is reset at start-up (issue 9).
 */
export function createOutboxRepo(db: Db) {
  /** Due: queued or failed with its back-off over, or sending under a lease that expired. */
  const due = (now: Date) => sql`(
      (status in ('queued', 'failed') and (next_attempt_at is null or next_attempt_at <= ${now}))
      or (status = 'sending' and (lease_until is null or lease_until < ${now}))
    )`;

  return {
    /** Store a mail at most once per idempotency key; null when the key was queued before. */
    async insert(values: NewOutboxRow, tx?: DbOrTx): Promise<string | null> {
      const [row] = await (tx ?? db)
        .insert(outbox)
        .values(values)
        .onConflictDoNothing({ target: outbox.idempotencyKey })
        .returning({ id: outbox.id });
      return row?.id ?? null;
    },

    async idByKey(key: string, tx?: DbOrTx): Promise<string | null> {
      const [row] = await (tx ?? db)
        .select({ id: outbox.id })
        .from(outbox)
        .where(eq(outbox.idempotencyKey, key));
      return row?.id ?? null;
    },

    /** Claim one mail (just stored, so likely due) for `owner`; its row, or null when not due. */
    async claimOne(id: string, owner: string, now: Date, leaseUntil: Date): Promise<DeliveryRow | null> {
      const [row] = await db
        .update(outbox)
        .set({ status: 'sending', leaseOwner: owner, leaseUntil, attempts: sql`${outbox.attempts} + 1` })
        .where(and(eq(outbox.id, id), due(now)))
        .returning(DELIVERY_COLUMNS);
      return row ?? null;
    },

    /**
     * Claim up to `limit` due mails, oldest first (those taken over from a dead node before the
     * rest), skipping rows another node is claiming right now;
     * `onlyTenantHops`: only mail of tenants with their own next hop (a node without SMTP_RELAY_URL),
     * and with `outboundToo` the tenants' outbound mail as well (MX delivery needs no relay).
     */
    async claimDue(
      owner: string,
      now: Date,
      leaseUntil: Date,
      limit: number,
      onlyTenantHops = false,
      outboundToo = false,
    ): Promise<DeliveryRow[]> {
      const hops = sql`tenant_id in (select id from ${tenants} where ${tenants.nextHopUrl} is not null)`;
      // A node without a way out for outbound mail (the CLI) never claims it.
      const routable = !onlyTenantHops
        ? outboundToo
          ? sql``
          : sql`and kind <> 'outbound'`
        : outboundToo
          ? sql`and (${hops} or kind = 'outbound')`
          : sql`and ${hops} and kind <> 'outbound'`;
      return db
        .update(outbox)
        .set({ status: 'sending', leaseOwner: owner, leaseUntil, attempts: sql`${outbox.attempts} + 1` })
        .where(
          inArray(
            outbox.id,
            // Mail a dead node held comes first: it has waited a lease already.
            sql`(select id from ${outbox} where ${due(now)} ${routable}
              order by (status = 'sending') desc, created_at limit ${limit}
              for update skip locked)`,
          ),
        )
        .returning(DELIVERY_COLUMNS);
    },

    /** A claimed mail this node has no way out for: queued again as it was, its attempt not counted. */
    async unclaim(id: string, owner: string): Promise<void> {
      await db
        .update(outbox)
        .set({
          status: 'queued',
          leaseOwner: null,
          leaseUntil: null,
          attempts: sql`greatest(${outbox.attempts} - 1, 0)`,
        })
        .where(and(eq(outbox.id, id), eq(outbox.leaseOwner, owner), eq(outbox.status, 'sending')));
    },

    /** Extend the leases `owner` still holds on these mails (they are still being sent). */
    async renewLeases(ids: string[], owner: string, leaseUntil: Date): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(outbox)
        .set({ leaseUntil })
        .where(and(inArray(outbox.id, ids), eq(outbox.leaseOwner, owner), eq(outbox.status, 'sending')));
    },

    /** The relay took these: recorded for every node to see. */
    async markSent(ids: string[], now: Date): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(outbox)
        .set({ status: 'sent', sentAt: now, lastError: null, leaseOwner: null, leaseUntil: null })
        .where(and(inArray(outbox.id, ids), sql`${outbox.status} <> 'sent'`));
    },

    /** A temporary failure: due again at `nextAttemptAt`, lease given back. */
    async markFailed(id: string, owner: string, lastError: string, nextAttemptAt: Date): Promise<void> {
      await db
        .update(outbox)
        .set({ status: 'failed', lastError, nextAttemptAt, leaseOwner: null, leaseUntil: null })
        .where(and(eq(outbox.id, id), eq(outbox.leaseOwner, owner), eq(outbox.status, 'sending')));
    },

    /** Given up on: a permanent refusal, or the retry window is over. The rows bounced. */
    async markBounced(ids: string[], lastError: string | null): Promise<OutboxRow[]> {
      if (ids.length === 0) return [];
      return db
        .update(outbox)
        .set({
          status: 'bounced',
          leaseOwner: null,
          leaseUntil: null,
          ...(lastError !== null ? { lastError } : {}),
        })
        .where(and(inArray(outbox.id, ids), sql`${outbox.status} in ('sending', 'failed', 'queued')`))
        .returning();
    },

    /** Failed mail older than the retry window, a page at a time. */
    async expired(createdBefore: Date, limit: number): Promise<string[]> {
      const rows = await db
        .select({ id: outbox.id })
        .from(outbox)
        .where(and(eq(outbox.status, 'failed'), lt(outbox.createdAt, createdBefore)))
        .limit(limit);
      return rows.map((r) => r.id);
    },

    /**
     * Relayed mail still undelivered since before `createdBefore` whose sender was not told yet:
     * marked told, and returned (one node wins each row).
     */
    async takeDelayed(createdBefore: Date, now: Date, limit: number): Promise<OutboxRow[]> {
      const result = await db.execute(sql`
        update ${outbox} set delay_notified_at = ${now}
        where id in (
          select id from ${outbox}
          where status = 'failed' and delay_notified_at is null and created_at < ${createdBefore}
            and envelope_from is not null and envelope_from <> '' and kind <> 'bounce'
          order by created_at limit ${limit}
          for update skip locked
        )
        returning id`);
      const ids = rowsOf<{ id: string }>(result).map((r) => r.id);
      if (ids.length === 0) return [];
      return db.select().from(outbox).where(inArray(outbox.id, ids));
    },

    /**
     * The leases of a node that is gone (this node's previous run on its data folder): its mails
     * are due at once. What its journal recorded as accepted is marked sent first (`markSent`).
     */
    async releaseLeasesOf(owner: string): Promise<number> {
      const rows = await db
        .update(outbox)
        .set({ leaseUntil: null })
        .where(and(eq(outbox.leaseOwner, owner), eq(outbox.status, 'sending')))
        .returning({ id: outbox.id });
      return rows.length;
    },

    /** Only for the embedded database, which belongs to one process: a previous run's leases are void. */
    async releaseAllLeases(): Promise<void> {
      await db.update(outbox).set({ leaseUntil: null }).where(eq(outbox.status, 'sending'));
    },
  };
}
export type OutboxRepo = ReturnType<typeof createOutboxRepo>;
