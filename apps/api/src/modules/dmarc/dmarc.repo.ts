import type { DmarcResult, IntakeOutcome, ReportSource } from '@moat/contracts/dmarc';
import { and, desc, eq, gte, inArray, lt, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { orderOf } from '../../db/list-order.ts';
import {
  dmarcDaily,
  dmarcDomainDays,
  dmarcIntake,
  dmarcRecords,
  dmarcReports,
  dmarcSourceMonths,
  dmarcSourceQuarters,
} from '../../db/schema.ts';
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

/** A report's share of `dmarc_domain_days`: its rows, messages and what passed, on its UTC day. */
function domainDayOf(tenantId: string, report: AggregateReport) {
  let passedRows = 0;
  let messages = 0;
  let passed = 0;
  for (const r of report.records) {
    messages += r.count;
    if (r.dkim === 'pass' || r.spf === 'pass') {
      passedRows += 1;
      passed += r.count;
    }
  }
  return {
    tenantId,
    domain: report.policy.domain,
    day: report.begin.toISOString().slice(0, 10),
    rows: report.records.length,
    passedRows,
    messages,
    passed,
    reports: 1,
  };
}

const DAY_MS = 86_400_000;
/** Texts as one parameter (a PostgreSQL array literal): any number of them, any characters. */
const textArray = (values: string[]) =>
  sql`${`{${values.map((v) => `"${v.replace(/["\\]/g, '\\$&')}"`).join(',')}}`}::text[]`;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The first day of the UTC quarter a day (YYYY-MM-DD) falls in. */
const quarterOf = (day: string) => {
  const month = Number(day.slice(5, 7));
  return `${day.slice(0, 4)}-${String(month - ((month - 1) % 3)).padStart(2, '0')}-01`;
};

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
/** The failing sources' candidates per day past which every source of a domain is summed. */
const FAILING_CANDIDATES_MAX = 2_000;
/** Past this many months of data, the failing sources' candidates come from quarters, not months. */
const FAILING_MONTHS_MAX = 6;

export function createDmarcRepo(db: DbOrTx) {
  /** The rows' filter, with the time range given apart (the totals split it into days). */
  function recordsWhere(filter: RecordsFilter, from: Date | undefined, to: Date | undefined) {
    const where: SQL[] = [eq(dmarcRecords.tenantId, filter.tenantId)];
    if (filter.domain) where.push(eq(dmarcRecords.domain, filter.domain.toLowerCase()));
    // An address's digits, dots and colons only (the query's schema): no LIKE wildcard in it.
    // Compared in byte order ("C"), so that the address index reads the prefix as a range.
    if (filter.ip)
      where.push(sql`${dmarcRecords.sourceIp} collate "C" like ${`${filter.ip.toLowerCase()}%`}`);
    if (filter.reportId) where.push(eq(dmarcRecords.reportId, filter.reportId));
    if (filter.dmarc === 'pass') where.push(passes);
    if (filter.dmarc === 'fail') where.push(sql`not ${passes}`);
    if (from) where.push(gte(dmarcRecords.beginAt, from));
    if (to) where.push(lt(dmarcRecords.beginAt, to));
    return and(...where);
  }

  /** Rows, messages and passed messages of the rows matching a filter, summed from the rows. */
  async function summedRows(filter: RecordsFilter, from: Date | undefined, to: Date | undefined) {
    const [totals] = await db
      .select({
        total: sql<number>`count(*)::bigint`,
        messages: sql<number>`coalesce(sum(${dmarcRecords.count}), 0)::bigint`,
        passed: sql<number>`coalesce(sum(${dmarcRecords.count}) filter (where ${passes}), 0)::bigint`,
      })
      .from(dmarcRecords)
      .where(recordsWhere(filter, from, to));
    return {
      total: Number(totals?.total ?? 0),
      messages: Number(totals?.messages ?? 0),
      passed: Number(totals?.passed ?? 0),
    };
  }

  /**
   * The totals of a filter, exact. A source or a report picks few rows: summed from them. Otherwise
   * the whole UTC days of the range come from `dmarc_domain_days` (a row per domain and day, whose
   * day is that of the rows' `begin_at`), and only the part-days at its ends from the rows.
   */
  async function recordTotals(filter: RecordsFilter) {
    const { from, to } = filter;
    if (filter.ip || filter.reportId) return summedRows(filter, from, to);
    const first = from ? Math.ceil(from.getTime() / DAY_MS) * DAY_MS : undefined;
    const end = to ? Math.floor(to.getTime() / DAY_MS) * DAY_MS : undefined;
    if (first !== undefined && end !== undefined && first >= end) return summedRows(filter, from, to);
    const where: SQL[] = [eq(dmarcDomainDays.tenantId, filter.tenantId)];
    if (filter.domain) where.push(eq(dmarcDomainDays.domain, filter.domain.toLowerCase()));
    if (first !== undefined) where.push(gte(dmarcDomainDays.day, dayOf(first)));
    if (end !== undefined) where.push(lt(dmarcDomainDays.day, dayOf(end)));
    const [days] = await db
      .select({
        rows: sql<number>`coalesce(sum(${dmarcDomainDays.rows}), 0)::bigint`,
        passedRows: sql<number>`coalesce(sum(${dmarcDomainDays.passedRows}), 0)::bigint`,
        messages: sql<number>`coalesce(sum(${dmarcDomainDays.messages}), 0)::bigint`,
        passed: sql<number>`coalesce(sum(${dmarcDomainDays.passed}), 0)::bigint`,
      })
      .from(dmarcDomainDays)
      .where(and(...where));
    const rows = Number(days?.rows ?? 0);
    const passedRows = Number(days?.passedRows ?? 0);
    const messages = Number(days?.messages ?? 0);
    const passed = Number(days?.passed ?? 0);
    const sum =
      filter.dmarc === 'pass'
        ? { total: passedRows, messages: passed, passed }
        : filter.dmarc === 'fail'
          ? { total: rows - passedRows, messages: messages - passed, passed: 0 }
          : { total: rows, messages, passed };
    const edges = [
      from && first !== undefined && from.getTime() < first
        ? summedRows(filter, from, new Date(first))
        : null,
      to && end !== undefined && end < to.getTime() ? summedRows(filter, new Date(end), to) : null,
    ];
    for (const edge of await Promise.all(edges)) {
      if (!edge) continue;
      sum.total += edge.total;
      sum.messages += edge.messages;
      sum.passed += edge.passed;
    }
    return sum;
  }

  /**
   * Per domain, the `top` sources whose mail failed DMARC most from the day `from`, exact, without
   * summing every source of the period (a year holds tens of thousands). The candidates are each
   * bucket's `k` sources failing most, the buckets being the months the period touches
   * (`dmarc_source_months`) or, when its data spans more than a few months (`quarters`), its
   * quarters (`dmarc_source_quarters`); they are summed over the period exactly (its whole months,
   * and `dmarc_daily`'s days before the first of them). A source that is none of them failed, in
   * each bucket, at most as much as its k-th (nothing in a bucket of fewer than k), so over the
   * period at most the sum of those: when the top'th candidate's sum is above that bound, no other
   * source can be in the top. Otherwise k grows, and past a bound every source is summed. Fewer,
   * longer buckets give a tighter bound over a long period: senders failing a little every month
   * each reach a month's k-th but few reach a quarter's.
   */
  async function failingSources(
    tenantId: string,
    from: string,
    domains: string[],
    top: number,
    quarters: boolean,
  ) {
    const [y, m, d] = from.split('-').map(Number) as [number, number, number];
    // The month `from` falls in, and the first that starts on or after it.
    const startMonth = dayOf(Date.UTC(y, m - 1, 1));
    const firstMonth = dayOf(Date.UTC(y, d === 1 ? m - 1 : m, 1));
    // The buckets the candidates are read from: from the one `from` falls in.
    const bucket = quarters
      ? {
          start: quarterOf(from),
          unit: sql.raw(`'quarter'`),
          table: dmarcSourceQuarters,
          column: sql.raw('x.quarter'),
        }
      : {
          start: startMonth,
          unit: sql.raw(`'month'`),
          table: dmarcSourceMonths,
          column: sql.raw('x.month'),
        };
    const found: Array<{ domain: string; sourceIp: string; messages: number; reports: number }> = [];
    let pending = domains;
    for (let k = Math.max(4 * top, 20); pending.length > 0; k *= 4) {
      const exhaustive = k > FAILING_CANDIDATES_MAX;
      const heads = exhaustive
        ? []
        : rowsOf(
            await db.execute(
              sql`select p.domain, p.period, t.source_ip, t.failed
                  from (select distinct domain, date_trunc(${bucket.unit}, day)::date as period
                        from ${dmarcDomainDays}
                        where tenant_id = ${tenantId} and day >= ${bucket.start} and messages > passed
                          and domain = any(${textArray(pending)})) p
                  cross join lateral (
                    select x.source_ip, x.messages - x.passed as failed from ${bucket.table} x
                    where x.tenant_id = ${tenantId} and x.domain = p.domain and ${bucket.column} = p.period
                      and x.messages > x.passed
                    order by x.messages - x.passed desc limit ${k}) t`,
            ),
          );
      const bound = new Map<string, number>();
      const perPeriod = new Map<string, { domain: string; n: number; least: number }>();
      const candidates = new Map<string, Set<string>>();
      for (const h of heads) {
        const domain = String(h.domain);
        const key = `${domain} ${String(h.period)}`;
        const period = perPeriod.get(key) ?? { domain, n: 0, least: Number.POSITIVE_INFINITY };
        period.n += 1;
        period.least = Math.min(period.least, Number(h.failed));
        perPeriod.set(key, period);
        const set = candidates.get(domain) ?? new Set<string>();
        set.add(String(h.source_ip));
        candidates.set(domain, set);
      }
      for (const period of perPeriod.values())
        if (period.n >= k) bound.set(period.domain, (bound.get(period.domain) ?? 0) + period.least);
      const pairs = [...candidates].flatMap(([domain, ips]) => [...ips].map((ip) => [domain, ip] as const));
      const chosen = (x: string) =>
        exhaustive
          ? sql.raw(`${x}.domain = any(`).append(sql`${textArray(pending)})`)
          : sql
              .raw(`(${x}.domain, ${x}.source_ip) in `)
              .append(
                sql`(select * from unnest(${textArray(pairs.map((p) => p[0]))}, ${textArray(pairs.map((p) => p[1]))}))`,
              );
      const summed = rowsOf(
        await db.execute(
          sql`select domain, source_ip, sum(failed) as failed, sum(reports) as reports from (
                select x.domain, x.source_ip, x.messages - x.passed as failed, x.reports from ${dmarcSourceMonths} x
                where x.tenant_id = ${tenantId} and x.month >= ${firstMonth} and ${chosen('x')}
                union all
                select y.domain, y.source_ip, y.messages - y.passed, y.reports from ${dmarcDaily} y
                where y.tenant_id = ${tenantId} and y.day >= ${from} and y.day < ${firstMonth} and ${chosen('y')}
              ) s
              group by domain, source_ip
              having sum(failed) > 0`,
        ),
      ).map((r) => ({
        domain: String(r.domain),
        sourceIp: String(r.source_ip),
        messages: Number(r.failed),
        reports: Number(r.reports),
      }));
      const next: string[] = [];
      for (const domain of pending) {
        const ranked = summed
          .filter((r) => r.domain === domain)
          .sort(
            (a, b) =>
              b.messages - a.messages || (a.sourceIp < b.sourceIp ? -1 : a.sourceIp > b.sourceIp ? 1 : 0),
          )
          .slice(0, top);
        const limit = bound.get(domain) ?? 0;
        if (exhaustive || limit === 0 || (ranked.length === top && ranked[top - 1]!.messages > limit))
          found.push(...ranked);
        else next.push(domain);
      }
      pending = next;
    }
    return found.sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
  }

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
      contentHash: string,
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
            contentHash,
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
        const month = `${daily[0]?.day.slice(0, 7) ?? ''}-01`;
        for (let i = 0; i < daily.length; i += INSERT_BATCH)
          await tx
            .insert(dmarcSourceMonths)
            .values(daily.slice(i, i + INSERT_BATCH).map(({ day: _day, ...sum }) => ({ ...sum, month })))
            .onConflictDoUpdate({
              target: [
                dmarcSourceMonths.tenantId,
                dmarcSourceMonths.domain,
                dmarcSourceMonths.month,
                dmarcSourceMonths.sourceIp,
              ],
              set: {
                messages: sql`${dmarcSourceMonths.messages} + excluded.messages`,
                passed: sql`${dmarcSourceMonths.passed} + excluded.passed`,
                reports: sql`${dmarcSourceMonths.reports} + excluded.reports`,
              },
            });
        const quarter = quarterOf(month);
        for (let i = 0; i < daily.length; i += INSERT_BATCH)
          await tx
            .insert(dmarcSourceQuarters)
            .values(daily.slice(i, i + INSERT_BATCH).map(({ day: _day, ...sum }) => ({ ...sum, quarter })))
            .onConflictDoUpdate({
              target: [
                dmarcSourceQuarters.tenantId,
                dmarcSourceQuarters.domain,
                dmarcSourceQuarters.quarter,
                dmarcSourceQuarters.sourceIp,
              ],
              set: {
                messages: sql`${dmarcSourceQuarters.messages} + excluded.messages`,
                passed: sql`${dmarcSourceQuarters.passed} + excluded.passed`,
                reports: sql`${dmarcSourceQuarters.reports} + excluded.reports`,
              },
            });
        await tx
          .insert(dmarcDomainDays)
          .values(domainDayOf(tenantId, report))
          .onConflictDoUpdate({
            target: [dmarcDomainDays.tenantId, dmarcDomainDays.domain, dmarcDomainDays.day],
            set: {
              rows: sql`${dmarcDomainDays.rows} + excluded.rows`,
              passedRows: sql`${dmarcDomainDays.passedRows} + excluded.passed_rows`,
              messages: sql`${dmarcDomainDays.messages} + excluded.messages`,
              passed: sql`${dmarcDomainDays.passed} + excluded.passed`,
              reports: sql`${dmarcDomainDays.reports} + excluded.reports`,
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
     * the number of reports, and the policy the latest report saw. The sums and counts come from
     * `dmarc_domain_days` (a row per domain and day); the failing sources from `dmarc_daily`.
     */
    async overview(tenantId: string, from: string, topFailing: number) {
      const inRange = and(eq(dmarcDomainDays.tenantId, tenantId), gte(dmarcDomainDays.day, from));
      const days = await db
        .select({
          domain: dmarcDomainDays.domain,
          day: dmarcDomainDays.day,
          messages: dmarcDomainDays.messages,
          passed: dmarcDomainDays.passed,
          reports: dmarcDomainDays.reports,
        })
        .from(dmarcDomainDays)
        .where(inRange)
        .orderBy(dmarcDomainDays.domain, dmarcDomainDays.day);
      const reportCounts = new Map<string, number>();
      for (const d of days) reportCounts.set(d.domain, (reportCounts.get(d.domain) ?? 0) + d.reports);
      const reported = [...reportCounts].filter(([, n]) => n > 0).map(([domain]) => domain);
      const since = `${from}T00:00:00Z`;
      // The months the period's data spans: past a few, the failing sources read quarters.
      const monthOf = (day: string) => Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7));
      const lastDay = days.reduce((last, d) => (d.day > last ? d.day : last), from);
      const quarters = monthOf(lastDay) - monthOf(from) + 1 > FAILING_MONTHS_MAX;
      // Independent of each other: read at once (each on a connection of its own).
      const [policies, failing] = await Promise.all([
        reported.length
          ? db
              .execute(
                sql`select d.domain, (select ${dmarcReports.policy}->>'p' from ${dmarcReports}
                    where ${dmarcReports.tenantId} = ${tenantId} and ${dmarcReports.domain} = d.domain
                      and ${dmarcReports.beginAt} >= ${since}::timestamptz
                    order by ${dmarcReports.endAt} desc limit 1) as policy
                  from unnest(${textArray(reported)}) as d(domain)`,
              )
              .then(rowsOf)
          : [],
        failingSources(
          tenantId,
          from,
          [...new Set(days.filter((d) => d.messages > d.passed).map((d) => d.domain))],
          topFailing,
          quarters,
        ),
      ]);
      return {
        days: days
          .filter((d) => d.messages > 0)
          .map((d) => ({
            domain: d.domain,
            day: d.day,
            messages: Number(d.messages),
            passed: Number(d.passed),
          })),
        failing,
        reports: policies.map((p) => ({
          domain: String(p.domain),
          reports: reportCounts.get(String(p.domain)) ?? 0,
          policy: p.policy == null ? null : String(p.policy),
        })),
      };
    },

    /** The report taken in before with this content, or one taken in before contents were hashed. */
    async findReport(
      tenantId: string,
      orgName: string,
      reportId: string,
      domain: string,
      contentHash: string,
    ) {
      const [row] = await db
        .select()
        .from(dmarcReports)
        .where(
          and(
            eq(dmarcReports.tenantId, tenantId),
            eq(dmarcReports.orgName, orgName),
            eq(dmarcReports.reportId, reportId),
            eq(dmarcReports.domain, domain),
            inArray(dmarcReports.contentHash, [contentHash, '']),
          ),
        )
        .limit(1);
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
      const condition = recordsWhere(filter, filter.from, filter.to);
      const totals = await recordTotals(filter);
      const column = {
        begin: dmarcRecords.beginAt,
        count: dmarcRecords.count,
        // Byte order, as the address index holds it (the same order for addresses' characters).
        source_ip: sql`${dmarcRecords.sourceIp} collate "C"`,
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
        .orderBy(...orderOf(column, filter.dir, dmarcRecords.id))
        .limit(filter.limit)
        .offset(filter.offset);
      return { ...totals, items };
    },
  };
}
export type DmarcRepo = ReturnType<typeof createDmarcRepo>;
