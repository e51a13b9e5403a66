import { gunzipSync, gzipSync } from 'node:zlib';
import type {
  DmarcRecord,
  DmarcReport,
  RecordsResponse,
  ReportSource,
  UploadResult,
} from '@moat/contracts/dmarc';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { type AggregateReport, parseReportXml, ReportRefused, reportXml } from './aggregate-report.ts';
import type { DmarcRepo, RecordsFilter, ReportRow } from './dmarc.repo.ts';

const reportOf = (row: ReportRow): DmarcReport => ({
  id: row.id,
  domain: row.domain,
  orgName: row.orgName,
  orgEmail: row.orgEmail,
  reportId: row.reportId,
  begin: row.beginAt.toISOString(),
  end: row.endAt.toISOString(),
  policy: row.policy,
  messages: row.messages,
  rows: row.rows,
  source: row.source,
  receivedAt: row.receivedAt.toISOString(),
});

/**
 * DMARC (issue 37): aggregate reports taken in (uploaded by an admin; sent to the tenant's report
 * address through the gateway), once each, about the tenant's own domains only; and what they say.
 */
export function createDmarcService(deps: {
  repo: DmarcRepo;
  domainsOf: (tenantId: string) => Promise<string[]>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
}) {
  const { repo } = deps;
  return {
    /** One report file taken in; a 400 saying why a file is not a report of the tenant's. */
    async ingest(
      tenantId: string,
      file: Uint8Array,
      source: ReportSource,
      actor: Actor,
    ): Promise<UploadResult> {
      // Inflated once: read, and kept (gzip) as the raw report.
      let xml: Buffer;
      let report: AggregateReport;
      try {
        xml = reportXml(file);
        report = parseReportXml(xml);
      } catch (error) {
        if (error instanceof ReportRefused) throw new AppError('validation_error', error.message);
        throw error;
      }
      const domains = await deps.domainsOf(tenantId);
      const domain = report.policy.domain;
      if (!domains.some((d) => d.toLowerCase() === domain))
        throw new AppError(
          'validation_error',
          `The report is about ${domain}, which is not one of your domains (${domains.join(', ') || 'none yet'})`,
        );
      const stored = await repo.insertReport(tenantId, report, source, gzipSync(xml), deps.clock.now());
      const row = stored ?? (await repo.findReport(tenantId, report.orgName, report.reportId, domain));
      if (!row) throw new Error('a report neither stored nor found');
      if (stored)
        await deps.audit.record(actor, {
          tenantId,
          action: 'dmarc.report_added',
          targetType: 'dmarc_report',
          targetId: row.id,
          details: { domain, reporter: row.orgName, report_id: row.reportId, source, rows: row.rows },
        });
      const { begin, end, messages, rows, orgName, reportId, id } = reportOf(row);
      return { id, duplicate: stored === null, domain, orgName, reportId, begin, end, messages, rows };
    },

    async reports(tenantId: string, limit: number, offset: number) {
      const found = await repo.reports(tenantId, limit, offset);
      return { total: found.total, items: found.items.map(reportOf) };
    },

    /** A report's XML as the reporter sent it, or null when the tenant has no such report. */
    async rawReport(tenantId: string, id: string): Promise<{ xml: Buffer; name: string } | null> {
      const row = await repo.reportById(tenantId, id);
      if (!row) return null;
      const name = `${row.orgName}!${row.domain}!${row.beginAt.getTime() / 1000}!${row.endAt.getTime() / 1000}.xml`;
      return { xml: gunzipSync(row.rawGzip), name: name.replace(/[^A-Za-z0-9.!_-]/g, '_') };
    },

    async records(filter: RecordsFilter): Promise<RecordsResponse> {
      const found = await repo.records(filter);
      return {
        total: found.total,
        messages: found.messages,
        passed: found.passed,
        items: found.items.map(
          ({ record: r, orgName, endAt }): DmarcRecord => ({
            id: r.id,
            reportId: r.reportId,
            orgName,
            domain: r.domain,
            begin: r.beginAt.toISOString(),
            end: endAt.toISOString(),
            sourceIp: r.sourceIp,
            count: r.count,
            disposition: r.disposition,
            dkim: r.dkim,
            spf: r.spf,
            dmarc: r.dkim === 'pass' || r.spf === 'pass' ? 'pass' : 'fail',
            headerFrom: r.headerFrom,
            envelopeFrom: r.envelopeFrom,
            dkimResults: r.dkimResults,
            spfResults: r.spfResults,
          }),
        ),
      };
    },
  };
}
export type DmarcService = ReturnType<typeof createDmarcService>;
