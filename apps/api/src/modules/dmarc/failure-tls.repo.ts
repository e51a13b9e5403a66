import type { IntakeOutcome, ReportSource } from '@moat/contracts/dmarc';
import { and, desc, eq, gte, type SQL, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { dmarcFailureReports, dmarcIntake, dmarcTlsReports } from '../../db/schema.ts';
import type { FailureReport } from './failure-report.ts';
import type { TlsReport } from './tls-report.ts';

export type FailureReportRow = typeof dmarcFailureReports.$inferSelect;
export type TlsReportRow = typeof dmarcTlsReports.$inferSelect;
/** What became of a file (as `dmarc_intake` has it), without its tenant. */
export type FailureTlsIntakeEntry = Omit<
  typeof dmarcIntake.$inferInsert,
  'id' | 'tenantId' | 'reportId' | 'outcome'
>;

export interface FailureTlsFilter {
  tenantId: string;
  domain?: string;
  since: Date;
  limit: number;
  offset: number;
}

/** Failure reports (RFC 6591) and TLS reports (RFC 8460) taken in, and their reading (issue 37). */
export function createFailureTlsRepo(db: DbOrTx) {
  return {
    /**
     * The failure report and what became of its file, unless the same report (reporter and hash)
     * was taken in before: then null, and nothing is written.
     */
    async insertFailure(
      tenantId: string,
      domain: string,
      report: FailureReport,
      source: ReportSource,
      now: Date,
      intake: FailureTlsIntakeEntry,
    ): Promise<FailureReportRow | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(dmarcFailureReports)
          .values({
            tenantId,
            domain,
            reportedDomain: report.reportedDomain,
            reporter: report.reporter,
            reportHash: report.hash,
            arrivalAt: report.arrivalAt,
            sourceIp: report.sourceIp,
            authFailure: report.authFailure,
            originalMailFrom: report.originalMailFrom,
            originalRcptTo: report.originalRcptTo,
            deliveryResult: report.deliveryResult,
            dkimDomain: report.dkimDomain,
            dkimSelector: report.dkimSelector,
            spfDns: report.spfDns,
            identityAlignment: report.identityAlignment,
            authenticationResults: report.authenticationResults,
            sampleHeaders: report.sample,
            source,
            receivedAt: now,
          })
          .onConflictDoNothing()
          .returning();
        if (!row) return null;
        await tx
          .insert(dmarcIntake)
          .values({ ...intake, tenantId, outcome: 'added' })
          .onConflictDoNothing();
        return row;
      });
    },

    async findFailure(tenantId: string, reporter: string, hash: string) {
      const [row] = await db
        .select()
        .from(dmarcFailureReports)
        .where(
          and(
            eq(dmarcFailureReports.tenantId, tenantId),
            eq(dmarcFailureReports.reporter, reporter),
            eq(dmarcFailureReports.reportHash, hash),
          ),
        );
      return row ?? null;
    },

    /** The TLS report and what became of its file, unless taken in before (reporter, report id, content): null. */
    async insertTls(
      tenantId: string,
      domain: string,
      report: TlsReport,
      source: ReportSource,
      now: Date,
      intake: FailureTlsIntakeEntry,
    ): Promise<TlsReportRow | null> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .insert(dmarcTlsReports)
          .values({
            tenantId,
            domain,
            orgName: report.orgName,
            contact: report.contact,
            reportId: report.reportId,
            contentHash: report.hash,
            beginAt: report.begin,
            endAt: report.end,
            successful: report.policies.reduce((n, p) => n + p.successful, 0),
            failed: report.policies.reduce((n, p) => n + p.failed, 0),
            policies: report.policies,
            source,
            receivedAt: now,
          })
          .onConflictDoNothing()
          .returning();
        if (!row) return null;
        await tx
          .insert(dmarcIntake)
          .values({ ...intake, tenantId, outcome: 'added' })
          .onConflictDoNothing();
        return row;
      });
    },

    async findTls(tenantId: string, orgName: string, reportId: string, hash: string) {
      const [row] = await db
        .select()
        .from(dmarcTlsReports)
        .where(
          and(
            eq(dmarcTlsReports.tenantId, tenantId),
            eq(dmarcTlsReports.orgName, orgName),
            eq(dmarcTlsReports.reportId, reportId),
            eq(dmarcTlsReports.contentHash, hash),
          ),
        );
      return row ?? null;
    },

    /** What became of a file that added no report (a duplicate or refused); once per message part. */
    async recordIntake(
      tenantId: string,
      entry: FailureTlsIntakeEntry & { outcome: IntakeOutcome },
    ): Promise<void> {
      await db
        .insert(dmarcIntake)
        .values({ ...entry, tenantId })
        .onConflictDoNothing();
    },

    /** The failure reports received since a time, newest first; a domain's (and its subdomains') only. */
    async failures(filter: FailureTlsFilter) {
      const where: SQL[] = [
        eq(dmarcFailureReports.tenantId, filter.tenantId),
        gte(dmarcFailureReports.receivedAt, filter.since),
      ];
      if (filter.domain) where.push(eq(dmarcFailureReports.domain, filter.domain));
      const condition = and(...where);
      const [{ total } = { total: 0 }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(dmarcFailureReports)
        .where(condition);
      const items = await db
        .select()
        .from(dmarcFailureReports)
        .where(condition)
        .orderBy(
          desc(sql`coalesce(${dmarcFailureReports.arrivalAt}, ${dmarcFailureReports.receivedAt})`),
          desc(dmarcFailureReports.id),
        )
        .limit(filter.limit)
        .offset(filter.offset);
      return { total, items };
    },

    /** The TLS reports whose period began since a time, newest first, and the sums per domain. */
    async tlsReports(filter: FailureTlsFilter) {
      const where: SQL[] = [
        eq(dmarcTlsReports.tenantId, filter.tenantId),
        gte(dmarcTlsReports.beginAt, filter.since),
      ];
      if (filter.domain) where.push(eq(dmarcTlsReports.domain, filter.domain));
      const condition = and(...where);
      const domains = await db
        .select({
          domain: dmarcTlsReports.domain,
          reports: sql<number>`count(*)::int`,
          // numeric: a sum of many reports never overflows (read as a number, exact below 2^53).
          successful: sql<number>`coalesce(sum(${dmarcTlsReports.successful}), 0)::numeric`,
          failed: sql<number>`coalesce(sum(${dmarcTlsReports.failed}), 0)::numeric`,
        })
        .from(dmarcTlsReports)
        .where(condition)
        .groupBy(dmarcTlsReports.domain)
        .orderBy(dmarcTlsReports.domain);
      const items = await db
        .select()
        .from(dmarcTlsReports)
        .where(condition)
        .orderBy(desc(dmarcTlsReports.beginAt), desc(dmarcTlsReports.id))
        .limit(filter.limit)
        .offset(filter.offset);
      return {
        domains: domains.map((d) => ({
          ...d,
          successful: Number(d.successful),
          failed: Number(d.failed),
        })),
        total: domains.reduce((n, d) => n + d.reports, 0),
        items,
      };
    },
  };
}
export type FailureTlsRepo = ReturnType<typeof createFailureTlsRepo>;
