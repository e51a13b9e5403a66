import type { DmarcResult, ReportSource } from '@moat/contracts/dmarc';
import { and, asc, desc, eq, gte, like, lt, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { dmarcRecords, dmarcReports } from '../../db/schema.ts';
import type { AggregateReport } from './aggregate-report.ts';

export type ReportRow = typeof dmarcReports.$inferSelect;
export type RecordRow = typeof dmarcRecords.$inferSelect;

/** Rows written in one statement (a report has up to 100,000). */
const INSERT_BATCH = 1_000;

export interface RecordsFilter {
  tenantId: string;
  domain?: string;
  ip?: string;
  reportId?: string;
  dmarc?: DmarcResult;
  from?: Date;
  to?: Date;
  sort: 'begin' | 'count' | 'source_ip';
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const passes = sql`(${dmarcRecords.dkim} = 'pass' or ${dmarcRecords.spf} = 'pass')`;

export function createDmarcRepo(db: DbOrTx) {
  return {
    /**
     * The report and its rows, unless the same report (reporter, report id, domain) was taken in
     * before: then null, and nothing is written.
     */
    async insertReport(
      tenantId: string,
      report: AggregateReport,
      source: ReportSource,
      rawGzip: Uint8Array,
      now: Date,
    ): Promise<ReportRow | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(dmarcReports)
          .values({
            tenantId,
            domain: report.policy.domain,
            orgName: report.orgName,
            orgEmail: report.email,
            reportId: report.reportId,
            beginAt: report.begin,
            endAt: report.end,
            policy: {
              p: report.policy.p,
              sp: report.policy.sp,
              adkim: report.policy.adkim,
              aspf: report.policy.aspf,
              pct: report.policy.pct,
            },
            messages: report.records.reduce((sum, r) => sum + r.count, 0),
            rows: report.records.length,
            source,
            rawGzip,
            receivedAt: now,
          })
          .onConflictDoNothing()
          .returning();
        if (!row) return null;
        for (let i = 0; i < report.records.length; i += INSERT_BATCH)
          await tx.insert(dmarcRecords).values(
            report.records.slice(i, i + INSERT_BATCH).map((r) => ({
              reportId: row.id,
              tenantId,
              domain: row.domain,
              beginAt: row.beginAt,
              sourceIp: r.sourceIp,
              count: r.count,
              disposition: r.disposition,
              dkim: r.dkim,
              spf: r.spf,
              headerFrom: r.headerFrom,
              envelopeFrom: r.envelopeFrom,
              envelopeTo: r.envelopeTo,
              dkimResults: r.dkimResults,
              spfResults: r.spfResults,
              reasons: r.reasons,
            })),
          );
        return row;
      });
    },

    async findReport(tenantId: string, orgName: string, reportId: string, domain: string) {
      const [row] = await db
        .select()
        .from(dmarcReports)
        .where(
          and(
            eq(dmarcReports.tenantId, tenantId),
            eq(dmarcReports.orgName, orgName),
            eq(dmarcReports.reportId, reportId),
            eq(dmarcReports.domain, domain),
          ),
        );
      return row ?? null;
    },

    async reportById(tenantId: string, id: string) {
      const [row] = await db
        .select()
        .from(dmarcReports)
        .where(and(eq(dmarcReports.tenantId, tenantId), eq(dmarcReports.id, id)));
      return row ?? null;
    },

    async reports(tenantId: string, limit: number, offset: number) {
      const where = eq(dmarcReports.tenantId, tenantId);
      const [{ total } = { total: 0 }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(dmarcReports)
        .where(where);
      const items = await db
        .select()
        .from(dmarcReports)
        .where(where)
        .orderBy(desc(dmarcReports.beginAt), desc(dmarcReports.receivedAt))
        .limit(limit)
        .offset(offset);
      return { total, items };
    },

    /** The rows matching a filter, with their report's reporter and range, and the totals. */
    async records(filter: RecordsFilter) {
      const where: SQL[] = [eq(dmarcRecords.tenantId, filter.tenantId)];
      if (filter.domain) where.push(eq(dmarcRecords.domain, filter.domain.toLowerCase()));
      // An address's digits, dots and colons only (the query's schema): no LIKE wildcard in it.
      if (filter.ip) where.push(like(dmarcRecords.sourceIp, `${filter.ip.toLowerCase()}%`));
      if (filter.reportId) where.push(eq(dmarcRecords.reportId, filter.reportId));
      if (filter.dmarc === 'pass') where.push(passes);
      if (filter.dmarc === 'fail') where.push(sql`not ${passes}`);
      if (filter.from) where.push(gte(dmarcRecords.beginAt, filter.from));
      if (filter.to) where.push(lt(dmarcRecords.beginAt, filter.to));
      const condition = and(...where);
      const [totals] = await db
        .select({
          total: sql<number>`count(*)::int`,
          messages: sql<number>`coalesce(sum(${dmarcRecords.count}), 0)::bigint`,
          passed: sql<number>`coalesce(sum(${dmarcRecords.count}) filter (where ${passes}), 0)::bigint`,
        })
        .from(dmarcRecords)
        .where(condition);
      const column = {
        begin: dmarcRecords.beginAt,
        count: dmarcRecords.count,
        source_ip: dmarcRecords.sourceIp,
      }[filter.sort];
      const items = await db
        .select({
          record: dmarcRecords,
          orgName: dmarcReports.orgName,
          endAt: dmarcReports.endAt,
        })
        .from(dmarcRecords)
        .innerJoin(dmarcReports, eq(dmarcReports.id, dmarcRecords.reportId))
        .where(condition)
        .orderBy(filter.dir === 'asc' ? asc(column) : desc(column), asc(dmarcRecords.id))
        .limit(filter.limit)
        .offset(filter.offset);
      return {
        total: totals?.total ?? 0,
        messages: Number(totals?.messages ?? 0),
        passed: Number(totals?.passed ?? 0),
        items,
      };
    },
  };
}
export type DmarcRepo = ReturnType<typeof createDmarcRepo>;
