import type { SortDirection } from '@moat/contracts/list';
import type { DeliveryStatus, MailExplorerList, MailSort } from '@moat/contracts/mail-explorer';
import { type AnyColumn, and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import { mailLog, outbox } from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

type Entry = MailExplorerList['items'][number];

export interface MailLogFilter {
  verdict?: Entry['verdict'] | undefined;
  action?: Entry['action'] | undefined;
  /** Words anywhere in the subject, sender name, sender or recipient. */
  q?: string | undefined;
  /** Received at or after. */
  from?: Date | undefined;
  /** Received before. */
  to?: Date | undefined;
  /** The Message-ID header, angle brackets optional. */
  messageId?: string | undefined;
  /** What became of the delivery (the outbox row of the message and recipient). */
  delivery?: DeliveryStatus | undefined;
}

/**
 * The delivery of a row's message to its recipient, from its outbox row (one per gateway delivery,
 * found by the unique idempotency key `inbound id:recipient` — an index lookup per row): queued or
 * being sent; sent; deferred (a try failed, it is retried); failed (bounced, given up); none (held,
 * or not delivered by the gateway). The outbox's `failed` is a temporary failure.
 */
export const deliveryOf = sql<DeliveryStatus>`coalesce((
  select case o.status
    when 'sent' then 'sent'
    when 'bounced' then 'failed'
    when 'failed' then 'deferred'
    when 'queued' then case when o.last_error is null then 'queued' else 'deferred' end
    when 'sending' then case when o.last_error is null then 'queued' else 'deferred' end
    else 'none' end
  from ${outbox} o
  where o.idempotency_key = ${mailLog.inboundId}::text || ':' || ${mailLog.recipient}
    and o.tenant_id = ${mailLog.tenantId}), 'none')`;

/** The columns a list is sorted by; the id breaks ties so paging is stable. */
const SORTED: Record<MailSort, AnyColumn | SQL> = {
  received_at: mailLog.receivedAt,
  sender: sql`lower(${mailLog.sender})`,
  recipient: mailLog.recipient,
  subject: sql`lower(${mailLog.subject})`,
  verdict: mailLog.verdict,
  size: mailLog.size,
};

/** The columns the Mail Explorer shows (the row's other columns stay in the database); the trace adds its own. */
export const listed = {
  id: mailLog.id,
  receivedAt: mailLog.receivedAt,
  sender: mailLog.sender,
  senderName: mailLog.senderName,
  recipient: mailLog.recipient,
  subject: mailLog.subject,
  messageIdHeader: mailLog.messageIdHeader,
  verdict: mailLog.verdict,
  action: mailLog.action,
  reasons: mailLog.reasons,
  spf: mailLog.spf,
  dkim: mailLog.dkim,
  dmarc: mailLog.dmarc,
  size: mailLog.size,
  attachments: mailLog.attachments,
  quarantineMessageId: mailLog.quarantineMessageId,
  delivery: deliveryOf,
};
export type MailLogRow = Omit<
  Pick<typeof mailLog.$inferSelect, Exclude<keyof typeof listed, 'delivery'>>,
  'verdict' | 'action'
> & {
  // The table's check constraints keep both within the contract's lists.
  verdict: Entry['verdict'];
  action: Entry['action'];
  delivery: DeliveryStatus;
};

export function createMailExplorerRepo(db: DbOrTx) {
  return {
    /** One page of the tenant's mail log, newest first, and how many rows match in all. */
    async page(
      tenantId: string,
      filter: MailLogFilter,
      page: { limit: number; offset: number; sort: MailSort; dir: SortDirection },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: MailLogRow[] }> {
      const where: SQL[] = [eq(mailLog.tenantId, tenantId)];
      if (filter.verdict) where.push(eq(mailLog.verdict, filter.verdict));
      if (filter.action) where.push(eq(mailLog.action, filter.action));
      if (filter.delivery) where.push(sql`${deliveryOf} = ${filter.delivery}`);
      if (filter.from) where.push(gte(mailLog.receivedAt, filter.from));
      if (filter.to) where.push(lt(mailLog.receivedAt, filter.to));
      if (filter.messageId) {
        const bare = filter.messageId.replace(/^<|>$/g, '');
        where.push(sql`${mailLog.messageIdHeader} in (${bare}, ${`<${bare}>`})`);
      }
      if (filter.q) {
        where.push(
          sql`(${mailLog.subject} || ' ' || ${mailLog.senderName} || ' ' || ${mailLog.sender} || ' ' || ${mailLog.recipient}) ilike ${containsPattern(filter.q)}`,
        );
      }
      const q = tx ?? db;
      const [rows, [total]] = await Promise.all([
        q
          .select(listed)
          .from(mailLog)
          .where(and(...where))
          .orderBy(...orderOf(SORTED[page.sort], page.dir, mailLog.id))
          .limit(page.limit)
          .offset(page.offset),
        q
          .select({ n: count() })
          .from(mailLog)
          .where(and(...where)),
      ]);
      return { total: Number(total?.n ?? 0), rows: rows as MailLogRow[] };
    },
  };
}
export type MailExplorerRepo = ReturnType<typeof createMailExplorerRepo>;
