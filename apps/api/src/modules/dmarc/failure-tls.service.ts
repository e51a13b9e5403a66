import { constants, gunzipSync } from 'node:zlib';
import type {
  FailureReportsResponse,
  IntakeOutcome,
  ReportSource,
  TlsReportsResponse,
  UploadResult,
} from '@moat/contracts/dmarc';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { createWorkerPool } from '../../lib/worker-pool.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { ReportRefused } from './aggregate-report.ts';
import { type FailureReport, looksLikeMessage, parseFailureReport } from './failure-report.ts';
import type {
  FailureReportRow,
  FailureTlsFilter,
  FailureTlsIntakeEntry,
  FailureTlsRepo,
  TlsReportRow,
} from './failure-tls.repo.ts';
import type { OtherReportRead, OtherReportTask } from './report.worker.ts';
import { parseTlsReport, type TlsReport } from './tls-report.ts';

/** Files at least this large are read on the report worker: what a sender sends must not hold the loop. */
const OFF_THREAD_BYTES = 32 * 1024;
/** A file that takes longer than this to read is refused (its worker is ended). */
const READ_TIMEOUT_MS = 20_000;

/*
 * Failure reports (RFC 6591) and SMTP TLS reports (RFC 8460), issue 37: taken in from the report
 * addresses and uploads beside the aggregate reports (dmarc.service.ts hands them here), about the
 * tenant's own domains only, once each; what became of every file recorded in `dmarc_intake`.
 */

export type FailureTlsKind = 'failure' | 'tls';

/**
 * What an uploaded file is, by its content (the console sends every file as bytes): JSON (plain
 * or gzip) is a TLS report, a mail message a failure report, anything else an aggregate report.
 */
export function uploadKindOf(file: Uint8Array): 'aggregate' | FailureTlsKind {
  let head = file.subarray(0, 4096);
  if (file[0] === 0x1f && file[1] === 0x8b) {
    try {
      // The first bytes inflated only (a truncated stream is allowed): enough to see a `{`.
      head = gunzipSync(file.subarray(0, 1024), {
        finishFlush: constants.Z_SYNC_FLUSH,
        maxOutputLength: 1024 * 1024,
      }).subarray(0, 4096);
    } catch {
      return 'aggregate';
    }
  }
  const text = Buffer.from(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('{')) return 'tls';
  if (!(file[0] === 0x50 && file[1] === 0x4b) && !text.startsWith('<') && looksLikeMessage(head))
    return 'failure';
  return 'aggregate';
}

/** The tenant's domain a reported domain belongs to: itself or its parent (the longest match). */
function ownDomainOf(reported: string, domains: string[]): string | null {
  const name = reported.toLowerCase();
  let best: string | null = null;
  for (const d of domains.map((x) => x.toLowerCase()))
    if ((name === d || name.endsWith(`.${d}`)) && (!best || d.length > best.length)) best = d;
  return best;
}

const notOurs = (domain: string, domains: string[]) =>
  `The report is about ${domain}, which is not one of your domains (${domains.join(', ') || 'none yet'})`;

const failureOf = (row: FailureReportRow): FailureReportsResponse['items'][number] => ({
  id: row.id,
  domain: row.domain,
  reportedDomain: row.reportedDomain,
  reporter: row.reporter,
  arrivalAt: row.arrivalAt?.toISOString() ?? null,
  sourceIp: row.sourceIp,
  authFailure: row.authFailure,
  originalMailFrom: row.originalMailFrom,
  originalRcptTo: row.originalRcptTo,
  deliveryResult: row.deliveryResult,
  dkimDomain: row.dkimDomain,
  dkimSelector: row.dkimSelector,
  spfDns: row.spfDns,
  identityAlignment: row.identityAlignment,
  authenticationResults: row.authenticationResults,
  sampleHeaders: row.sampleHeaders,
  source: row.source,
  receivedAt: row.receivedAt.toISOString(),
});

const tlsOf = (row: TlsReportRow): TlsReportsResponse['items'][number] => ({
  id: row.id,
  domain: row.domain,
  orgName: row.orgName,
  contact: row.contact,
  reportId: row.reportId,
  begin: row.beginAt.toISOString(),
  end: row.endAt.toISOString(),
  successful: row.successful,
  failed: row.failed,
  policies: row.policies,
  source: row.source,
  receivedAt: row.receivedAt.toISOString(),
});

interface Done {
  outcome: IntakeOutcome;
  reason: string;
  /** What an upload answers: the report taken in (or found again); null when refused. */
  result: UploadResult | null;
}

export function createFailureTlsService(deps: {
  repo: FailureTlsRepo;
  domainsOf: (tenantId: string) => Promise<string[]>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
}) {
  const { repo } = deps;
  const pool = createWorkerPool<OtherReportTask, OtherReportRead>({
    worker: 'report.worker',
    besideUrl: import.meta.url,
  });

  /** A file read as `kind`, off the event loop when large; ReportRefused says why it is not one. */
  async function parse(kind: 'failure', file: Uint8Array): Promise<FailureReport>;
  async function parse(kind: 'tls', file: Uint8Array): Promise<TlsReport>;
  async function parse(kind: FailureTlsKind, file: Uint8Array): Promise<FailureReport | TlsReport> {
    // Small and not compressed: read here. A gzip of a few KB may inflate to 50 MB: the worker reads it.
    const gzip = file[0] === 0x1f && file[1] === 0x8b;
    if (file.length < OFF_THREAD_BYTES && !gzip)
      return kind === 'failure' ? parseFailureReport(file) : parseTlsReport(file);
    let read: OtherReportRead;
    try {
      read = await pool.run({ kind, file }, { timeoutMs: READ_TIMEOUT_MS });
    } catch (error) {
      if ((error as { code?: string }).code === 'ETIMEDOUT')
        throw new ReportRefused(`Reading the report took longer than ${READ_TIMEOUT_MS / 1000} s`);
      throw error;
    }
    if (read.refused !== undefined) throw new ReportRefused(read.refused);
    return read.report as FailureReport | TlsReport;
  }

  /**
   * A report stored (audited as `entry`) or found stored before (its file recorded a duplicate):
   * what became of it.
   */
  async function settled(
    tenantId: string,
    entry: FailureTlsIntakeEntry,
    actor: Actor,
    added: boolean,
    result: UploadResult,
    audit: Omit<Parameters<AuditRepo['record']>[1], 'tenantId'>,
  ): Promise<Done> {
    if (!added) {
      await repo.recordIntake(tenantId, { ...entry, outcome: 'duplicate' });
      return { outcome: 'duplicate', reason: '', result };
    }
    await deps.audit.record(actor, { tenantId, ...audit });
    return { outcome: 'added', reason: '', result };
  }

  async function takeInFailure(
    tenantId: string,
    file: Uint8Array,
    entry: FailureTlsIntakeEntry,
    actor: Actor,
    refused: (reason: string) => Promise<Done>,
  ): Promise<Done> {
    const report = await parse('failure', file);
    const domains = await deps.domainsOf(tenantId);
    const domain = ownDomainOf(report.reportedDomain, domains);
    if (!domain) return refused(notOurs(report.reportedDomain, domains));
    const source = entry.source as ReportSource;
    const stored = await repo.insertFailure(tenantId, domain, report, source, deps.clock.now(), entry);
    const row = stored ?? (await repo.findFailure(tenantId, report.reporter, report.hash));
    if (!row) throw new Error('a failure report neither stored nor found');
    const at = (row.arrivalAt ?? row.receivedAt).toISOString();
    const result: UploadResult = {
      id: row.id,
      duplicate: !stored,
      domain: row.domain,
      orgName: row.reporter,
      reportId: row.reportHash.slice(0, 16),
      begin: at,
      end: at,
      messages: 1,
      rows: 1,
      kind: 'failure',
    };
    return settled(tenantId, entry, actor, stored !== null, result, {
      action: 'dmarc.failure_report_added',
      targetType: 'dmarc_report',
      targetId: row.id,
      details: { domain, reporter: row.reporter, source, auth_failure: row.authFailure },
    });
  }

  async function takeInTls(
    tenantId: string,
    file: Uint8Array,
    entry: FailureTlsIntakeEntry,
    actor: Actor,
    refused: (reason: string) => Promise<Done>,
  ): Promise<Done> {
    const report = await parse('tls', file);
    const domains = await deps.domainsOf(tenantId);
    const reported = [...new Set(report.policies.map((p) => p.domain))];
    const foreign = reported.find((d) => !ownDomainOf(d, domains));
    if (foreign) return refused(notOurs(foreign, domains));
    const domain = reported[0]!;
    const source = entry.source as ReportSource;
    const stored = await repo.insertTls(tenantId, domain, report, source, deps.clock.now(), entry);
    const row = stored ?? (await repo.findTls(tenantId, report.orgName, report.reportId, report.hash));
    if (!row) throw new Error('a TLS report neither stored nor found');
    const result: UploadResult = {
      id: row.id,
      duplicate: !stored,
      domain: row.domain,
      orgName: row.orgName,
      reportId: row.reportId,
      begin: row.beginAt.toISOString(),
      end: row.endAt.toISOString(),
      messages: row.successful + row.failed,
      rows: row.policies.length,
      kind: 'tls',
    };
    return settled(tenantId, entry, actor, stored !== null, result, {
      action: 'dmarc.tls_report_added',
      targetType: 'dmarc_report',
      targetId: row.id,
      details: {
        domain,
        reporter: row.orgName,
        report_id: row.reportId,
        source,
        successful: row.successful,
        failed: row.failed,
      },
    });
  }

  /**
   * One failure or TLS report file taken in for a tenant, or refused: what became of it is
   * recorded (`entry`, once per message part) and returned.
   */
  async function takeIn(
    tenantId: string,
    kind: FailureTlsKind,
    file: Uint8Array,
    entry: FailureTlsIntakeEntry,
    actor: Actor,
  ): Promise<Done> {
    const refused = async (reason: string): Promise<Done> => {
      await repo.recordIntake(tenantId, { ...entry, kind, outcome: 'refused', reason: reason.slice(0, 500) });
      return { outcome: 'refused', reason, result: null };
    };
    try {
      const take = kind === 'failure' ? takeInFailure : takeInTls;
      return await take(tenantId, file, { ...entry, kind }, actor, refused);
    } catch (error) {
      if (error instanceof ReportRefused) return refused(error.message);
      throw error;
    }
  }

  const since = (days: number) => new Date(deps.clock.now().getTime() - days * 86_400_000);

  return {
    takeIn,

    close: () => pool.close(),

    /** An uploaded failure or TLS report taken in; a 400 saying why it is not a report of the tenant's. */
    async ingest(
      tenantId: string,
      kind: FailureTlsKind,
      file: Uint8Array,
      source: ReportSource,
      actor: Actor,
    ): Promise<UploadResult> {
      const done = await takeIn(tenantId, kind, file, { source, kind, sender: actor.email ?? '' }, actor);
      if (!done.result) throw new AppError('validation_error', done.reason);
      return done.result;
    },

    async failureReports(query: {
      tenantId: string;
      domain?: string;
      days: number;
      limit: number;
      offset: number;
    }): Promise<FailureReportsResponse> {
      const filter: FailureTlsFilter = { ...query, since: since(query.days) };
      const [found, ownDomains] = await Promise.all([repo.failures(filter), deps.domainsOf(query.tenantId)]);
      return { ownDomains, total: found.total, items: found.items.map(failureOf) };
    },

    async tlsReports(query: {
      tenantId: string;
      domain?: string;
      days: number;
      limit: number;
      offset: number;
    }): Promise<TlsReportsResponse> {
      const [found, ownDomains] = await Promise.all([
        repo.tlsReports({ ...query, since: since(query.days) }),
        deps.domainsOf(query.tenantId),
      ]);
      return { ownDomains, domains: found.domains, total: found.total, items: found.items.map(tlsOf) };
    },
  };
}
export type FailureTlsService = ReturnType<typeof createFailureTlsService>;
