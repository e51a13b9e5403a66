import { randomBytes, randomUUID } from 'node:crypto';
import type { SessionTls, StoredMessageDetails } from '@moat/contracts/message-trace';
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client.ts';
import { rowsOf } from '../../db/client.ts';
import { inboundMessages, mailLog, outbox, quarantineMessages, securityEvents } from '../../db/schema.ts';
import { sha256 } from '../parse.ts';

export type InboundRow = Pick<
  typeof inboundMessages.$inferSelect,
  'id' | 'receivedAt' | 'clientIp' | 'helo' | 'mailFrom' | 'rcptTo' | 'raw' | 'size' | 'attempts' | 'tls'
>;

/** A message as the front door took it in. */
export interface ArrivedMessage {
  receivedAt: Date;
  clientIp: string;
  helo: string;
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  /** TLS of the session (STARTTLS or implicit); null or absent: plain text. */
  tls?: SessionTls | null;
}

/** What a parked (unprocessable) message is held as, for each recipient of a tenant. */
export interface ParkedCopy {
  tenantId: string;
  retentionDays: number;
  recipient: string;
  sender: string;
  subject: string;
  reason: string;
  /** What the message trace shows of it (`mail_log.details`). */
  details: StoredMessageDetails;
}

/**
 * The inbound queue's SQL: rows are claimed before work with a lease (`FOR UPDATE SKIP LOCKED`,
 * owner node, expiry), so several nodes on one database never process one message at once, and
 * a node that dies leaves work any node takes over once the lease expires (issue 9, DESIGN §4).
 */
export function createInboundRepo(db: Db) {
  const columns = {
    id: inboundMessages.id,
    receivedAt: inboundMessages.receivedAt,
    clientIp: inboundMessages.clientIp,
    helo: inboundMessages.helo,
    mailFrom: inboundMessages.mailFrom,
    rcptTo: inboundMessages.rcptTo,
    raw: inboundMessages.raw,
    size: inboundMessages.size,
    attempts: inboundMessages.attempts,
    tls: inboundMessages.tls,
  };
  return {
    /**
     * Messages as they arrived, stored durably in one statement (the SMTP 250 waits for it), each claimed for `claimedBy` in it (as `claimRows`
     * would claim it: a lease until `leaseUntil`, its first attempt counted) when that is set —
     * for a node that processes it at once from memory. The rows in the order given.
     */
    async storeMany(
      messages: Array<ArrivedMessage & { claimedBy: string | null; leaseUntil: Date | null }>,
    ): Promise<InboundRow[]> {
      const rows = messages.map(({ claimedBy, leaseUntil, ...values }) => ({
        ...values,
        tls: values.tls ?? null,
        id: randomUUID(),
        size: values.raw.length,
        leaseOwner: claimedBy,
        leaseUntil: claimedBy ? leaseUntil : null,
        attempts: claimedBy ? 1 : 0,
      }));
      await db.insert(inboundMessages).values(rows);
      return rows.map(({ leaseOwner: _owner, leaseUntil: _until, ...row }) => row);
    },

    /**
     * Claim up to `limit` due messages for `owner` until `leaseUntil`: received, not backing off,
     * and not leased by a live node. Each claim counts as an attempt, so a message that kills
     * its node every time still reaches the attempt limit.
     */
    async claim(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<string[]> {
      const result = await db.execute(sql`
        update ${inboundMessages} set
          lease_owner = ${owner}, lease_until = ${leaseUntil}, attempts = attempts + 1
        where id in (
          select id from ${inboundMessages}
          where status = 'received'
            and (next_attempt_at is null or next_attempt_at <= ${now})
            and (lease_until is null or lease_until < ${now})
          order by received_at
          limit ${limit}
          for update skip locked
        )
        returning id`);
      return rowsOf<{ id: string }>(result).map((r) => r.id);
    },

    /** `claim`, returning the claimed messages as the processor needs them (one statement). */
    async claimRows(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<InboundRow[]> {
      return db
        .update(inboundMessages)
        .set({ leaseOwner: owner, leaseUntil, attempts: sql`${inboundMessages.attempts} + 1` })
        .where(
          inArray(
            inboundMessages.id,
            sql`(select id from ${inboundMessages}
              where status = 'received'
                and (next_attempt_at is null or next_attempt_at <= ${now})
                and (lease_until is null or lease_until < ${now})
              order by received_at
              limit ${limit}
              for update skip locked)`,
          ),
        )
        .returning(columns);
    },

    /**
     * Inside the message's final transaction, first: mark it processed if `owner` still holds it,
     * in one statement that also locks the row (so a node that took it over waits, then finds it
     * done). False: another node took it over after this node's lease ran out; it finishes it.
     */
    async finishIfOwned(tx: DbOrTx, id: string, owner: string, now: Date): Promise<boolean> {
      const rows = await tx
        .update(inboundMessages)
        .set({
          status: 'processed',
          processedAt: now,
          lastError: null,
          leaseOwner: null,
          leaseUntil: null,
          // Delivered or held copies live on; the inbound copy is no longer needed.
          raw: new Uint8Array(0),
        })
        .where(
          and(
            eq(inboundMessages.id, id),
            eq(inboundMessages.status, 'received'),
            eq(inboundMessages.leaseOwner, owner),
          ),
        )
        .returning({ id: inboundMessages.id });
      return rows.length === 1;
    },

    /**
     * Messages that go out as they came to every recipient, finished in one statement for all of
     * them (no transaction round trips): each marked processed if `owner` still holds it, its
     * deliveries queued (the same bytes for each recipient, at most once per idempotency key) and
     * its Mail Explorer rows written — all of a message or, when another node took it over, none
     * of it. With `claimDelivery` a message's mail is stored already claimed for delivery by
     * `owner` (status `sending`, a lease, its first attempt counted). Per message, in the order
     * given: its queued mails in the order of its `deliveries` (`createdAt` set for those this
     * statement stored, so claimed with `claimDelivery`), or null when it was not this node's to
     * finish.
     */
    async finishDelivered(
      owner: string,
      now: Date,
      messages: Array<{
        id: string;
        raw: Uint8Array;
        claimDelivery?: { leaseUntil: Date } | undefined;
        deliveries: Array<{
          tenantId: string;
          kind: string;
          fromName: string;
          toAddress: string;
          subject: string;
          envelopeFrom: string;
          idempotencyKey: string;
        }>;
        log: Array<typeof mailLog.$inferInsert>;
      }>,
    ): Promise<Array<Array<{ id: string; key: string; createdAt: Date | null }> | null>> {
      const deliveries = messages.flatMap((m, idx) =>
        m.deliveries.map((d) => ({
          idx,
          inbound_id: m.id,
          tenant_id: d.tenantId,
          kind: d.kind,
          from_name: d.fromName,
          to_address: d.toAddress,
          subject: d.subject,
          envelope_from: d.envelopeFrom,
          idempotency_key: d.idempotencyKey,
          status: m.claimDelivery ? 'sending' : 'queued',
          lease_owner: m.claimDelivery ? owner : null,
          lease_until: m.claimDelivery?.leaseUntil.toISOString() ?? null,
          attempts: m.claimDelivery ? 1 : 0,
        })),
      );
      const log = messages.flatMap((m) =>
        m.log.map((l) => ({
          tenant_id: l.tenantId,
          inbound_id: l.inboundId,
          recipient: l.recipient,
          sender: l.sender,
          sender_name: l.senderName ?? '',
          subject: l.subject ?? '',
          message_id_header: l.messageIdHeader ?? null,
          received_at: l.receivedAt.toISOString(),
          verdict: l.verdict,
          action: l.action,
          reasons: l.reasons ?? [],
          spf: l.spf ?? 'none',
          dkim: l.dkim ?? 'none',
          dmarc: l.dmarc ?? 'none',
          size: l.size,
          attachments: l.attachments ?? 0,
          details: l.details ?? {},
        })),
      );
      const ids = messages.map((m) => m.id);
      // Each message's bytes as a parameter of its own (sent as binary, not inside the JSON).
      const raws = sql.join(
        messages.map((m, idx) => sql`(${idx}::int, ${m.raw}::bytea)`),
        sql`, `,
      );
      const [row] = rowsOf<{ done: string[] | string; queued: Array<[string, string, string]> | string }>(
        await db.execute(sql`
          with done as (
            update ${inboundMessages} set status = 'processed', processed_at = ${now},
              last_error = null, lease_owner = null, lease_until = null, raw = ''::bytea
            where id in (select jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)::uuid)
              and status = 'received' and lease_owner = ${owner}
            returning id),
          queued as (
            insert into ${outbox} (tenant_id, kind, from_name, to_address, subject, text, html, raw,
              status, envelope_from, idempotency_key, lease_owner, lease_until, attempts)
            select d.tenant_id, d.kind, d.from_name, d.to_address, d.subject, '', '', r.raw,
              d.status, d.envelope_from, d.idempotency_key, d.lease_owner, d.lease_until, d.attempts
            from jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb) as d(idx int, inbound_id uuid,
              tenant_id uuid, kind text, from_name text, to_address text, subject text,
              envelope_from text, idempotency_key text, status text, lease_owner text,
              lease_until timestamptz, attempts int)
              join done on done.id = d.inbound_id
              join (values ${raws}) as r(idx, raw) on r.idx = d.idx
            on conflict (idempotency_key) do nothing
            returning id, idempotency_key, created_at),
          logged as (
            insert into ${mailLog} (tenant_id, inbound_id, recipient, sender, sender_name, subject,
              message_id_header, received_at, verdict, action, reasons, spf, dkim, dmarc, size, attachments,
              details)
            select l.tenant_id, l.inbound_id, l.recipient, l.sender, l.sender_name, l.subject,
              l.message_id_header, l.received_at, l.verdict, l.action, l.reasons, l.spf, l.dkim, l.dmarc,
              l.size, l.attachments, l.details
            from jsonb_to_recordset(${JSON.stringify(log)}::jsonb) as l(tenant_id uuid,
              inbound_id uuid, recipient text, sender text, sender_name text, subject text,
              message_id_header text, received_at timestamptz, verdict text, action text, reasons jsonb,
              spf text, dkim text, dmarc text, size int, attachments int, details jsonb)
              join done on done.id = l.inbound_id
            on conflict do nothing
            returning 1)
          select coalesce((select jsonb_agg(id) from done), '[]'::jsonb) as done,
            (select count(*) from logged)::int as logged,
            coalesce((select jsonb_agg(jsonb_build_array(id, idempotency_key, created_at)) from queued),
              '[]'::jsonb) as queued`),
      );
      const parse = <T>(value: T | string): T => (typeof value === 'string' ? JSON.parse(value) : value);
      const done = new Set(parse(row!.done));
      const byKey = new Map<string, { id: string; key: string; createdAt: Date | null }>(
        parse(row!.queued).map(([id, key, createdAt]) => [key, { id, key, createdAt: new Date(createdAt) }]),
      );
      // A key queued before (never, as the message was not finished; kept as the one-delivery rule).
      const missing = messages
        .filter((m) => done.has(m.id))
        .flatMap((m) => m.deliveries.filter((d) => !byKey.has(d.idempotencyKey)));
      if (missing.length > 0) {
        const earlier = await db
          .select({ id: outbox.id, key: outbox.idempotencyKey })
          .from(outbox)
          .where(
            inArray(
              outbox.idempotencyKey,
              missing.map((d) => d.idempotencyKey),
            ),
          );
        for (const { id, key } of earlier) if (key) byKey.set(key, { id, key, createdAt: null });
      }
      return messages.map((m) =>
        done.has(m.id) ? m.deliveries.flatMap((d) => byKey.get(d.idempotencyKey) ?? []) : null,
      );
    },

    /** Mail Explorer's row of one recipient of a processed message (once per message and recipient). */
    async logDelivery(tx: DbOrTx, values: typeof mailLog.$inferInsert): Promise<void> {
      await tx.insert(mailLog).values(values).onConflictDoNothing();
    },

    /** A verdict the security team sees among the events (mail delivered with a warning). */
    async recordEvent(tx: DbOrTx, values: typeof securityEvents.$inferInsert): Promise<void> {
      await tx.insert(securityEvents).values(values);
    },

    /** Extend the leases `owner` still holds on messages it is processing. */
    async renewLeases(ids: string[], owner: string, leaseUntil: Date): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(inboundMessages)
        .set({ leaseUntil })
        .where(
          and(
            inArray(inboundMessages.id, ids),
            eq(inboundMessages.leaseOwner, owner),
            eq(inboundMessages.status, 'received'),
          ),
        );
    },

    /** A failed pass: try again after `nextAttemptAt`; the lease is given back. */
    async backOff(id: string, owner: string, lastError: string, nextAttemptAt: Date): Promise<void> {
      await db
        .update(inboundMessages)
        .set({ lastError, nextAttemptAt, leaseOwner: null, leaseUntil: null })
        .where(and(eq(inboundMessages.id, id), eq(inboundMessages.leaseOwner, owner)));
    },

    /**
     * Every attempt failed: the message is parked `failed` and held, unscanned, for each
     * recipient of a tenant (visible in Quarantined Items and Mail Explorer with its error,
     * with a security event), never delivered. Its raw copy is kept for a retry.
     */
    async park(
      row: InboundRow,
      owner: string,
      lastError: string,
      copies: ParkedCopy[],
      now: Date,
      /** The bytes to hold (forged Authentication-Results removed); the inbound copy keeps the original. */
      heldRaw: Uint8Array,
    ): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [locked] = await tx
          .select({ status: inboundMessages.status, leaseOwner: inboundMessages.leaseOwner })
          .from(inboundMessages)
          .where(eq(inboundMessages.id, row.id))
          .for('update');
        if (locked?.status !== 'received' || locked.leaseOwner !== owner) return false;
        for (const copy of copies) {
          const [held] = await tx
            .insert(quarantineMessages)
            .values({
              tenantId: copy.tenantId,
              publicId: randomBytes(24).toString('base64url'),
              saasType: 'smtp_emails',
              recipient: copy.recipient,
              sender: copy.sender,
              subject: copy.subject,
              receivedAt: row.receivedAt,
              verdict: 'suspicious',
              reasons: [copy.reason],
              state: 'quarantined',
              silent: true,
              raw: heldRaw,
              rawSha256: sha256(heldRaw),
              size: heldRaw.length,
              expiresAt: new Date(now.getTime() + copy.retentionDays * 86_400_000),
              failedInboundId: row.id,
            })
            .returning({ id: quarantineMessages.id });
          await tx.insert(securityEvents).values({
            tenantId: copy.tenantId,
            messageId: held!.id,
            type: 'failure',
            recipient: copy.recipient,
            sender: copy.sender || row.mailFrom,
            subject: copy.subject,
            details: {
              inbound_id: row.id,
              findings: [{ engine: 'gateway', verdict: 'suspicious', reason: copy.reason }],
              decision: { verdict: 'suspicious', action: 'quarantine_silent', source: 'gateway' },
            },
            engine: 'gateway',
            verdict: 'suspicious',
            description: copy.reason,
            severity: 'high',
          });
          await tx
            .insert(mailLog)
            .values({
              tenantId: copy.tenantId,
              inboundId: row.id,
              recipient: copy.recipient,
              sender: copy.sender || row.mailFrom,
              subject: copy.subject,
              receivedAt: row.receivedAt,
              verdict: 'suspicious',
              action: 'failed',
              reasons: [copy.reason],
              size: row.size,
              quarantineMessageId: held!.id,
              details: copy.details,
            })
            .onConflictDoNothing();
        }
        await tx
          .update(inboundMessages)
          .set({ status: 'failed', lastError, processedAt: now, leaseOwner: null, leaseUntil: null })
          .where(eq(inboundMessages.id, row.id));
        return true;
      });
    },

    /**
     * An admin's retry of a parked message: its held copies (none released or deleted since)
     * are withdrawn and the message is due again, with a fresh attempt count.
     */
    async requeueParked(
      tx: DbOrTx,
      inboundId: string,
      tenantId: string,
    ): Promise<'requeued' | 'not_failed' | 'acted_on' | 'shared'> {
      const [row] = await tx
        .select({ status: inboundMessages.status })
        .from(inboundMessages)
        .where(eq(inboundMessages.id, inboundId))
        .for('update');
      if (row?.status !== 'failed') return 'not_failed';
      const copies = await tx
        .select({
          id: quarantineMessages.id,
          state: quarantineMessages.state,
          tenantId: quarantineMessages.tenantId,
        })
        .from(quarantineMessages)
        .where(eq(quarantineMessages.failedInboundId, inboundId));
      // Processing again withdraws every held copy: only the one organisation it was sent to may.
      if (copies.some((c) => c.tenantId !== tenantId)) return 'shared';
      if (copies.some((c) => c.state !== 'quarantined')) return 'acted_on';
      const ids = copies.map((c) => c.id);
      if (ids.length) {
        await tx.delete(mailLog).where(and(eq(mailLog.inboundId, inboundId), eq(mailLog.action, 'failed')));
        await tx.delete(quarantineMessages).where(inArray(quarantineMessages.id, ids));
      }
      await tx
        .update(inboundMessages)
        .set({
          status: 'received',
          attempts: 0,
          nextAttemptAt: null,
          leaseOwner: null,
          leaseUntil: null,
          processedAt: null,
        })
        .where(eq(inboundMessages.id, inboundId));
      return 'requeued';
    },

    /**
     * A stopping node hands back messages it claimed and never started: due again at once for any
     * node, the claim's attempt not counted.
     */
    async handBack(ids: string[], owner: string): Promise<void> {
      if (ids.length === 0) return;
      await db
        .update(inboundMessages)
        .set({
          leaseOwner: null,
          leaseUntil: null,
          attempts: sql`greatest(${inboundMessages.attempts} - 1, 0)`,
        })
        .where(
          and(
            inArray(inboundMessages.id, ids),
            eq(inboundMessages.leaseOwner, owner),
            eq(inboundMessages.status, 'received'),
          ),
        );
    },

    /**
     * The leases of a node that is gone (this node's previous run on its data folder): its
     * messages are due at once. Their attempts stay counted (one of them may be what killed it).
     */
    async releaseLeasesOf(owner: string): Promise<number> {
      const rows = await db
        .update(inboundMessages)
        .set({ leaseOwner: null, leaseUntil: null })
        .where(and(eq(inboundMessages.leaseOwner, owner), eq(inboundMessages.status, 'received')))
        .returning({ id: inboundMessages.id });
      return rows.length;
    },

    /** The embedded database belongs to one process: leases of a previous run are void. */
    async releaseAllLeases(): Promise<void> {
      await db
        .update(inboundMessages)
        .set({ leaseOwner: null, leaseUntil: null })
        .where(sql`${inboundMessages.leaseOwner} is not null`);
    },
  };
}
export type InboundRepo = ReturnType<typeof createInboundRepo>;
