import type { SortDirection } from '@moat/contracts/list';
import type { ATTACHMENT_SORTS, ModifiedAttachment } from '@moat/contracts/phishing-reports';
import { type AnyColumn, and, count, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import {
  phishingReports,
  quarantineAttachments,
  quarantineMessages,
  releases,
  restoreRequests,
} from '../../db/schema.ts';
import { containsPattern } from '../../lib/contains-pattern.ts';

type Sort = (typeof ATTACHMENT_SORTS)[number];

export interface AttachmentFilter {
  state?: ModifiedAttachment['state'] | undefined;
  q?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
}

export interface AttachmentRow {
  id: string;
  filename: string;
  contentType: string;
  size: number;
  state: ModifiedAttachment['state'];
  messageId: string;
  receivedAt: Date;
  sender: string;
  recipient: string;
  subject: string;
  verdict: ModifiedAttachment['verdict'];
  released: boolean;
  requestStatus: string | null;
}

const SORTED: Record<Sort, AnyColumn | SQL> = {
  received_at: quarantineMessages.receivedAt,
  recipient: quarantineMessages.recipient,
  filename: sql`lower(${quarantineAttachments.filename})`,
  size: quarantineAttachments.size,
};

/** A message delivered without its attachments: still so, or restored with its originals since. */
const stripped = sql`(${quarantineMessages.state} = 'attachments_removed' or (${quarantineMessages.state} = 'restored' and exists (select 1 from ${releases} where ${releases.messageId} = ${quarantineMessages.id} and ${releases.kind} = 'original')))`;

/** The User Interaction dashboard's numbers and the Modified Attachments list. */
export function createUserInteractionRepo(db: DbOrTx) {
  return {
    /** Restore requests and reports created per UTC day in [from, to). */
    async perDay(
      tenantId: string,
      from: Date,
      to: Date,
      tx?: DbOrTx,
    ): Promise<Array<{ day: string; requests: number; reports: number }>> {
      const rows = rowsOf<{ day: string; requests: number | string; reports: number | string }>(
        await (tx ?? db).execute(sql`
          select day, sum(requests)::int as requests, sum(reports)::int as reports from (
            select to_char(${restoreRequests.createdAt} at time zone 'UTC', 'YYYY-MM-DD') as day, 1 as requests, 0 as reports
              from ${restoreRequests}
              where ${restoreRequests.tenantId} = ${tenantId} and ${restoreRequests.createdAt} >= ${from} and ${restoreRequests.createdAt} < ${to}
            union all
            select to_char(${phishingReports.createdAt} at time zone 'UTC', 'YYYY-MM-DD'), 0, 1
              from ${phishingReports}
              where ${phishingReports.tenantId} = ${tenantId} and ${phishingReports.createdAt} >= ${from} and ${phishingReports.createdAt} < ${to}
          ) e group by day order by day`),
      );
      return rows.map((r) => ({ day: r.day, requests: Number(r.requests), reports: Number(r.reports) }));
    },

    /** Seconds from asking to deciding, of the requests and reports decided in [from, to). */
    async decisionTimes(
      tenantId: string,
      from: Date,
      to: Date,
      tx?: DbOrTx,
    ): Promise<{ decided: number; median: number | null; average: number | null }> {
      const [row] = rowsOf<{
        decided: number | string;
        median: number | string | null;
        average: number | string | null;
      }>(
        await (tx ?? db).execute(sql`
          select count(*)::int as decided,
            percentile_cont(0.5) within group (order by s) as median,
            avg(s) as average
          from (
            select extract(epoch from ${restoreRequests.decidedAt} - ${restoreRequests.createdAt}) as s
              from ${restoreRequests}
              where ${restoreRequests.tenantId} = ${tenantId} and ${restoreRequests.decidedAt} >= ${from} and ${restoreRequests.decidedAt} < ${to}
            union all
            select extract(epoch from ${phishingReports.decidedAt} - ${phishingReports.createdAt})
              from ${phishingReports}
              where ${phishingReports.tenantId} = ${tenantId} and ${phishingReports.decidedAt} >= ${from} and ${phishingReports.decidedAt} < ${to}
          ) d`),
      );
      const num = (v: number | string | null | undefined) =>
        v === null || v === undefined ? null : Number(v);
      return { decided: Number(row?.decided ?? 0), median: num(row?.median), average: num(row?.average) };
    },

    /** One page of the attachments removed from the tenant's delivered messages. */
    async attachments(
      tenantId: string,
      filter: AttachmentFilter,
      page: { limit: number; offset: number; sort: Sort; dir: SortDirection },
      tx?: DbOrTx,
    ): Promise<{ total: number; rows: AttachmentRow[] }> {
      const where: SQL[] = [eq(quarantineMessages.tenantId, tenantId), stripped];
      if (filter.state) where.push(eq(quarantineAttachments.state, filter.state));
      if (filter.from) where.push(gte(quarantineMessages.receivedAt, filter.from));
      if (filter.to) where.push(lt(quarantineMessages.receivedAt, filter.to));
      if (filter.q)
        where.push(
          sql`(${quarantineAttachments.filename} || ' ' || ${quarantineMessages.subject} || ' ' || ${quarantineMessages.sender} || ' ' || ${quarantineMessages.recipient}) ilike ${containsPattern(filter.q)}`,
        );
      const q = tx ?? db;
      const [rows, [total]] = await Promise.all([
        q
          .select({
            id: quarantineAttachments.id,
            filename: quarantineAttachments.filename,
            contentType: quarantineAttachments.contentType,
            size: quarantineAttachments.size,
            state: quarantineAttachments.state,
            messageId: quarantineMessages.id,
            receivedAt: quarantineMessages.receivedAt,
            sender: quarantineMessages.sender,
            recipient: quarantineMessages.recipient,
            subject: quarantineMessages.subject,
            verdict: quarantineMessages.verdict,
            released: sql<boolean>`exists (select 1 from ${releases} where ${releases.messageId} = ${quarantineMessages.id} and ${releases.kind} = 'original')`,
            requestStatus: sql<
              string | null
            >`(select ${restoreRequests.status} from ${restoreRequests} where ${restoreRequests.messageId} = ${quarantineMessages.id} and ${restoreRequests.kind} = 'original' order by ${restoreRequests.createdAt} desc limit 1)`,
          })
          .from(quarantineAttachments)
          .innerJoin(quarantineMessages, eq(quarantineMessages.id, quarantineAttachments.messageId))
          .where(and(...where))
          .orderBy(...orderOf(SORTED[page.sort], page.dir, quarantineAttachments.id))
          .limit(page.limit)
          .offset(page.offset),
        q
          .select({ n: count() })
          .from(quarantineAttachments)
          .innerJoin(quarantineMessages, eq(quarantineMessages.id, quarantineAttachments.messageId))
          .where(and(...where)),
      ]);
      return { total: Number(total?.n ?? 0), rows: rows as AttachmentRow[] };
    },
  };
}
export type UserInteractionRepo = ReturnType<typeof createUserInteractionRepo>;
