import type { DmarcResult, IntakeOutcome, ReportSource } from '@moat/contracts/dmarc';
import { and, asc, desc, eq, gte, like, lt, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { dmarcDaily, dmarcIntake, dmarcRecords, dmarcReports } from '../../db/schema.ts';
import type { AggregateReport } from './aggregate-report.ts';

export type ReportRow = typeof dmarcReports.$inferSelect;
export type RecordRow = typeof dmarcRecords.$inferSelect;
export type IntakeRow = typeof dmarcIntake.$inferSelect;
/** A file's fate, as written (its report, when one was taken in, is filled in by `insertReport`). */
export type IntakeEntry = Omit<typeof dmarcIntake.$inferInsert, 'id' | 'tenantId'>;

/** The rows of a report summed per UTC day of its period and source: its share of `dmarc_daily`. */
function dailyOf(tenantId: string, report: AggregateReport) {
  const day = report.begin.toISOString().slice(0, 10);
  const bySource = new Map<string, { messages: number; passed: number }>();
  for (const r of report.records) {
    const sum = bySource.get(r.sourceIp) ?? { messages: 0, passed: 0 };
    sum.messages += r.count;
    if (r.dkim === 'pass' || r.spf === 'pass') sum.passed += r.count;
    bySource.set(r.sourceIp, sum);
  }
  return [...bySource].map(([sourceIp, sum]) => ({
    tenantId,
    domain: report.policy.domain,
    day,
    sourceIp,
    messages: sum.messages,
    passed: sum.passed,
    reports: 1,
  }));
}

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
     * The report, its rows and its share of the daily sums, and what became of its file (`intake`),
     * unless the same report (reporter, report id, domain) was taken in before: then null, and
     * nothing is written.
     */
    async insertReport(
      tenantId: string,
      report: AggregateReport,
      source: ReportSource,
      rawGzip: Uint8Array,
      now: Date,
      intake: IntakeEntry,
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
        const daily = dailyOf(tenantId, report);
        for (let i = 0; i < daily.length; i += INSERT_BATCH)
          await tx
            .insert(dmarcDaily)
            .values(daily.slice(i, i + INSERT_BATCH))
            .onConflictDoUpdate({
              target: [dmarcDaily.tenantId, dmarcDaily.domain, dmarcDaily.day, dmarcDaily.sourceIp],
              set: {
                messages: sql`${dmarcDaily.messages} + excluded.messages`,
                passed: sql`${dmarcDaily.passed} + excluded.passed`,
                reports: sql`${dmarcDaily.reports} + excluded.reports`,
              },
            });
        await tx
          .insert(dmarcIntake)
          .values({ ...intake, tenantId, reportId: row.id, outcome: 'added' })
          .onConflictDoNothing();
        return row;
      });
    },

    /** What became of a file that added no report (a duplicate or refused); once per message part. */
    async recordIntake(tenantId: string, entry: IntakeEntry & { outcome: IntakeOutcome }): Promise<void> {
      await db
        .insert(dmarcIntake)
        .values({ ...entry, tenantId })
        .onConflictDoNothing();
    },

    async intake(tenantId: string, outcome: IntakeOutcome | undefined, limit: number, offset: number) {
      const where = and(
        eq(dmarcIntake.tenantId, tenantId),
        outcome ? eq(dmarcIntake.outcome, outcome) : undefined,
      );
      const [{ total } = { total: 0 }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(dmarcIntake)
        .where(where);
      const items = await db
        .select()
        .from(dmarcIntake)
        .where(where)
        .orderBy(desc(dmarcIntake.receivedAt), desc(dmarcIntake.part), desc(dmarcIntake.id))
        .limit(limit)
        .offset(offset);
      return { total, items };
    },

    /**
     * Per domain over the days from `from` (a UTC date): the daily sums, the sources failing most,
     * the number of reports, and the policy the latest report saw.
     */
    async overview(tenantId: string, from: string, topFailing: number) {
      const inRange = and(eq(dmarcDaily.tenantId, tenantId), gte(dmarcDaily.day, from));
      const days = await db
        .select({
          domain: dmarcDaily.domain,
          day: dmarcDaily.day,
          messages: sql<number>`sum(${dmarcDaily.messages})::bigint`,
          passed: sql<number>`sum(${dmarcDaily.passed})::bigint`,
        })
        .from(dmarcDaily)
        .where(inRange)
        .groupBy(dmarcDaily.domain, dmarcDaily.day)
        .orderBy(dmarcDaily.domain, dmarcDaily.day);
      const failing = await db.execute(
        sql`select domain, source_ip, failed, reports from (
              select ${dmarcDaily.domain} as domain, ${dmarcDaily.sourceIp} as source_ip,
                sum(${dmarcDaily.messages} - ${dmarcDaily.passed}) as failed, sum(${dmarcDaily.reports}) as reports,
                row_number() over (partition by ${dmarcDaily.domain}
                  order by sum(${dmarcDaily.messages} - ${dmarcDaily.passed}) desc, ${dmarcDaily.sourceIp}) as place
              from ${dmarcDaily} where ${inRange}
              group by ${dmarcDaily.domain}, ${dmarcDaily.sourceIp}
              having sum(${dmarcDaily.messages} - ${dmarcDaily.passed}) > 0
            ) ranked where place <= ${topFailing} order by domain, place`,
      );
      const reports = await db
        .select({
          domain: dmarcReports.domain,
          reports: sql<number>`count(*)::int`,
          policy: sql<
            string | null
          >`(array_agg(${dmarcReports.policy}->>'p' order by ${dmarcReports.endAt} desc))[1]`,
        })
        .from(dmarcReports)
        .where(
          and(eq(dmarcReports.tenantId, tenantId), gte(dmarcReports.beginAt, new Date(`${from}T00:00:00Z`))),
        )
        .groupBy(dmarcReports.domain);
      return {
        days: days.map((d) => ({ ...d, messages: Number(d.messages), passed: Number(d.passed) })),
        failing: rowsOf(failing).map((r) => ({
          domain: String(r.domain),
          sourceIp: String(r.source_ip),
          messages: Number(r.failed),
          reports: Number(r.reports),
        })),
        reports,
      };
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
