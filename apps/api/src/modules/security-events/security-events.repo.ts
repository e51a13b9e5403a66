import type { SortDirection } from '@moat/contracts/list';
import type { EventDetails, EventSort, SecurityEvent } from '@moat/contracts/security-events';
import { type AnyColumn, and, asc, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { mailLog, releases, restoreRequests, securityEvents } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

export interface EventFilter {
  type?: SecurityEvent['type'] | undefined;
  verdict?: string | undefined;
  severity?: string | undefined;
  engine?: string | undefined;
  /** A part of the recipient's address, any case. */
  recipient?: string | undefined;
  /** A part of the sender's address, any case. */
  sender?: string | undefined;
  /** Only the events of mail to exactly this address (a plain user's own mail). */
  ownRecipient?: string | undefined;
  /** Words anywhere in the subject, addresses or description. */
  q?: string | undefined;
  /** Created at or after. */
  from?: Date | undefined;
  /** Created before. */
  to?: Date | undefined;
}

/** Severity sorts by weight, not by name: high is above medium. */
const SEVERITY_RANK = sql`case ${securityEvents.severity} when 'high' then 3 when 'medium' then 2 when 'low' then 1 else 0 end`;

const SORTED: Record<EventSort, AnyColumn | SQL> = {
  created_at: securityEvents.createdAt,
  severity: SEVERITY_RANK,
  type: securityEvents.type,
  verdict: securityEvents.verdict,
  recipient: sql`lower(${securityEvents.recipient})`,
  sender: sql`lower(${securityEvents.sender})`,
};

/** What the list shows of an event (the evidence stays for the detail). */
const listed = {
  id: securityEvents.id,
  createdAt: securityEvents.createdAt,
  type: securityEvents.type,
  engine: securityEvents.engine,
  verdict: securityEvents.verdict,
  severity: securityEvents.severity,
  description: securityEvents.description,
  recipient: securityEvents.recipient,
  sender: securityEvents.sender,
  subject: securityEvents.subject,
  messageId: securityEvents.messageId,
};
export type EventRow = Pick<typeof securityEvents.$inferSelect, keyof typeof listed>;
export type EventDetailRow = EventRow & { details: EventDetails };

function whereOf(tenantId: string, filter: EventFilter): SQL[] {
  const where: SQL[] = [eq(securityEvents.tenantId, tenantId)];
  if (filter.type) where.push(eq(securityEvents.type, filter.type));
  if (filter.verdict) where.push(eq(securityEvents.verdict, filter.verdict));
  if (filter.severity) where.push(eq(securityEvents.severity, filter.severity));
  if (filter.engine) {
    // An event of several engines names them all ("anti_phishing,url_reputation").
    where.push(sql`${filter.engine} = any(string_to_array(${securityEvents.engine}, ','))`);
  }
  if (filter.recipient)
    where.push(sql`${securityEvents.recipient} ilike ${containsPattern(filter.recipient)}`);
  if (filter.sender) where.push(sql`${securityEvents.sender} ilike ${containsPattern(filter.sender)}`);
  if (filter.ownRecipient)
    where.push(sql`lower(${securityEvents.recipient}) = lower(${filter.ownRecipient})`);
  if (filter.from) where.push(gte(securityEvents.createdAt, filter.from));
  if (filter.to) where.push(lt(securityEvents.createdAt, filter.to));
  if (filter.q) {
    where.push(
      sql`(${securityEvents.subject} || ' ' || ${securityEvents.sender} || ' ' || ${securityEvents.recipient} || ' ' || ${securityEvents.description}) ilike ${containsPattern(filter.q)}`,
    );
  }
  return where;
}

export function createSecurityEventsRepo(db: DbOrTx) {
  return {
    /** One page of the tenant's events and how many match in all. */
    async page(
      tenantId: string,
      filter: EventFilter,
      page: { limit: number; offset: number; sort: EventSort; dir: SortDirection },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: EventRow[] }> {
      const where = and(...whereOf(tenantId, filter));
      const q = tx ?? db;
      const [rows, [total]] = await Promise.all([
        q
          .select(listed)
          .from(securityEvents)
          .where(where)
          .orderBy(...orderOf(SORTED[page.sort], page.dir, securityEvents.id))
          .limit(page.limit)
          .offset(page.offset),
        q.select({ n: count() }).from(securityEvents).where(where),
      ]);
      return { total: Number(total?.n ?? 0), rows };
    },

    /** One event of the tenant with its evidence (a plain user: only of their own mail). */
    async eventIn(
      tenantId: string,
      id: string,
      ownRecipient: string | undefined,
      tx?: DbOrTx,
    ): Promise<EventDetailRow | null> {
      const [row] = await (tx ?? db)
        .select({ ...listed, details: securityEvents.details })
        .from(securityEvents)
        .where(and(eq(securityEvents.id, id), ...whereOf(tenantId, { ownRecipient })));
      return row ?? null;
    },

    /** The message's other events, its restore requests and its releases (the story of the held copy). */
    async historyOf(tenantId: string, messageId: string, tx?: DbOrTx) {
      const q = tx ?? db;
      const [events, requests, released] = await Promise.all([
        q
          .select(listed)
          .from(securityEvents)
          .where(and(eq(securityEvents.tenantId, tenantId), eq(securityEvents.messageId, messageId)))
          .orderBy(asc(securityEvents.createdAt)),
        q
          .select({
            createdAt: restoreRequests.createdAt,
            decidedAt: restoreRequests.decidedAt,
            status: restoreRequests.status,
            kind: restoreRequests.kind,
            requestedBy: restoreRequests.requestedBy,
            declineReason: restoreRequests.declineReason,
          })
          .from(restoreRequests)
          .where(and(eq(restoreRequests.tenantId, tenantId), eq(restoreRequests.messageId, messageId))),
        // Releases carry no tenant: the message id was found in this tenant by the caller.
        q
          .select({ createdAt: releases.createdAt, kind: releases.kind })
          .from(releases)
          .where(eq(releases.messageId, messageId)),
      ]);
      return { events, requests, released };
    },

    /**
     * The Mail Explorer row of the event's copy: by the gateway's inbound id and the recipient
     * (the row's own key), or else by the held copy it points to.
     */
    async mailLogIdOf(
      tenantId: string,
      event: { recipient: string; messageId: string | null; details: EventDetails },
      tx?: DbOrTx,
    ): Promise<string | null> {
      const q = tx ?? db;
      const by = event.details.inbound_id
        ? and(eq(mailLog.inboundId, event.details.inbound_id), eq(mailLog.recipient, event.recipient))
        : event.messageId
          ? eq(mailLog.quarantineMessageId, event.messageId)
          : null;
      if (!by) return null;
      const [row] = await q
        .select({ id: mailLog.id })
        .from(mailLog)
        .where(and(eq(mailLog.tenantId, tenantId), by))
        .limit(1);
      return row?.id ?? null;
    },

    /**
     * A release of a held message (by an admin, directly or by approving a request), once per
     * message and kind: a repeated release adds no second event.
     */
    async recordRelease(
      m: {
        id: string;
        tenantId: string;
        recipient: string;
        sender: string;
        subject: string;
        verdict: string;
      },
      kind: 'email' | 'original',
      /** Where it went when an admin chose another address of the tenant; else the recipient. */
      to?: string,
      tx?: DbOrTx,
    ): Promise<void> {
      const target = to ?? m.recipient;
      await (tx ?? db)
        .insert(securityEvents)
        .values({
          tenantId: m.tenantId,
          messageId: m.id,
          type: 'release',
          engine: 'admin',
          verdict: m.verdict,
          severity: 'info',
          description:
            kind === 'email'
              ? `Released to ${target} by an admin`
              : `Original attachments released to ${target} by an admin`,
          recipient: m.recipient,
          sender: m.sender,
          subject: m.subject,
          details: {
            kind,
            ...(target !== m.recipient ? { to: target } : {}),
            decision: { verdict: m.verdict, action: `release_${kind}`, source: 'admin' },
          },
        })
        .onConflictDoNothing();
    },
  };
}
export type SecurityEventsRepo = ReturnType<typeof createSecurityEventsRepo>;
