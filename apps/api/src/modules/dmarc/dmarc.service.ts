import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import {
  type DmarcIntake,
  type DmarcOverview,
  type DmarcRecord,
  type DmarcReport,
  type DomainOverview,
  type IntakeOutcome,
  type RecordsResponse,
  type ReportSource,
  reportAddressOf,
  type UploadResult,
} from '@moat/contracts/dmarc';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { type CsvColumn, toCsv } from '../../lib/csv.ts';
import { createWorkerPool } from '../../lib/worker-pool.ts';
import { parseMessage } from '../../mail/parse.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import { type ReadReport, readReport } from './aggregate-report.ts';
import type { DmarcRepo, IntakeEntry, IntakeRow, RecordsFilter, ReportRow } from './dmarc.repo.ts';
import { type FailureTlsService, uploadKindOf } from './failure-tls.service.ts';
import { reportFilesOf } from './report-mail.ts';

/** Files at least this large are read on a worker thread: a 1 MB report must not hold the loop. */
const OFF_THREAD_BYTES = 32 * 1024;
/** A report file that takes longer than this to read is refused (its worker is ended). */
const READ_TIMEOUT_MS = 20_000;
/** The sources failing most, per domain, on the Overview. */
const TOP_FAILING = 10;
/** Rows of a CSV export at most. */
export const RECORDS_CSV_MAX = 50_000;
/** How long a domain's published DMARC record is kept before it is looked up again. */
const PUBLISHED_TTL_MS = 5 * 60_000;

/** A TXT lookup (node:dns's answers: each record its strings); an error for no answer. */
export type TxtResolver = (name: string, rrtype: 'TXT') => Promise<unknown>;

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

const intakeOf = (row: IntakeRow): DmarcIntake => ({
  id: row.id,
  receivedAt: row.receivedAt.toISOString(),
  source: row.source,
  sender: row.sender,
  subject: row.subject,
  fileName: row.fileName,
  kind: row.kind,
  outcome: row.outcome,
  reason: row.reason,
  reportId: row.reportId,
});

const recordOf = ({
  record: r,
  orgName,
  endAt,
}: Awaited<ReturnType<DmarcRepo['records']>>['items'][number]): DmarcRecord => ({
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
});

const results = (list: DmarcRecord['dkimResults']) =>
  list.map((r) => `${r.domain}${r.selector ? ` (${r.selector})` : ''}: ${r.result}`).join('; ');

const CSV_COLUMNS: Array<CsvColumn<DmarcRecord>> = [
  { header: 'begin', value: (r) => r.begin },
  { header: 'end', value: (r) => r.end },
  { header: 'reporter', value: (r) => r.orgName },
  { header: 'domain', value: (r) => r.domain },
  { header: 'source_ip', value: (r) => r.sourceIp },
  { header: 'count', value: (r) => r.count },
  { header: 'disposition', value: (r) => r.disposition },
  { header: 'dmarc', value: (r) => r.dmarc },
  { header: 'dkim_aligned', value: (r) => r.dkim },
  { header: 'spf_aligned', value: (r) => r.spf },
  { header: 'header_from', value: (r) => r.headerFrom },
  { header: 'envelope_from', value: (r) => r.envelopeFrom },
  { header: 'dkim_results', value: (r) => results(r.dkimResults) },
  { header: 'spf_results', value: (r) => results(r.spfResults) },
];

/** Why a file sent to a report address that is not an aggregate report is not taken in. */
const NOT_READ: Record<'failure' | 'tls' | 'unknown', string> = {
  failure: 'A failure report (RFC 6591): this edition keeps aggregate reports only',
  tls: 'An SMTP TLS report (RFC 8460): this edition keeps aggregate reports only',
  unknown: 'The message holds no DMARC report (an XML, gzip or zip file, attached or in the body)',
};

/** The DMARC record among a name's TXT records: `v=DMARC1` first (RFC 7489 §6.6.3). */
function dmarcRecordOf(answer: unknown): string | null {
  const records = (Array.isArray(answer) ? answer : []).map((r) =>
    Array.isArray(r) ? r.join('') : String(r),
  );
  const found = records.filter((r) => /^v\s*=\s*DMARC1\s*(;|$)/i.test(r));
  return found.length === 1 ? found[0]! : null;
}

/** A tag's value of a DMARC record (`p`, `rua`), lower case; null when absent. */
export function dmarcTag(record: string, tag: string): string | null {
  for (const part of record.split(';')) {
    const [name, ...value] = part.split('=');
    if (name?.trim().toLowerCase() === tag) return value.join('=').trim();
  }
  return null;
}

/**
 * DMARC (issue 37): aggregate reports taken in — sent to a domain's report address through the
 * gateway, or uploaded by an admin — once each, about the tenant's own domains only; what became
 * of every file (taken in, or refused and why); and what the reports say, per source and per domain.
 */
export function createDmarcService(deps: {
  repo: DmarcRepo;
  domainsOf: (tenantId: string) => Promise<string[]>;
  audit: Pick<AuditRepo, 'record'>;
  clock: Clock;
  /** The domains' published DMARC records (DNS_SERVERS); none: reported as not checked. */
  resolveTxt?: TxtResolver;
  /** Failure and TLS reports (failure-tls.service.ts): files of those kinds are handed there. */
  failureTls?: FailureTlsService;
}) {
  const { repo } = deps;
  const pool = createWorkerPool<Uint8Array, ReadReport>({
    worker: 'report.worker',
    besideUrl: import.meta.url,
  });
  const published = new Map<string, { at: number; value: DomainOverview['published'] }>();

  async function read(file: Uint8Array): Promise<ReadReport> {
    if (file.length < OFF_THREAD_BYTES) return readReport(file);
    try {
      return await pool.run(file, { timeoutMs: READ_TIMEOUT_MS });
    } catch (error) {
      if ((error as { code?: string }).code === 'ETIMEDOUT')
        return { refused: `Reading the report took longer than ${READ_TIMEOUT_MS / 1000} s` };
      throw error;
    }
  }

  /**
   * One file taken in for a tenant, or refused: what became of it is recorded (`entry`), and
   * returned. A report about a domain that is not the tenant's is refused.
   */
  async function takeIn(
    tenantId: string,
    file: Uint8Array,
    entry: IntakeEntry,
    actor: Actor,
  ): Promise<{ outcome: IntakeOutcome; reason: string; row: ReportRow | null }> {
    const refused = async (reason: string) => {
      await repo.recordIntake(tenantId, { ...entry, outcome: 'refused', reason: reason.slice(0, 500) });
      return { outcome: 'refused' as const, reason, row: null };
    };
    const read_ = await read(file);
    if ('refused' in read_) return refused(read_.refused);
    const { report } = read_;
    const domains = await deps.domainsOf(tenantId);
    const domain = report.policy.domain;
    if (!domains.some((d) => d.toLowerCase() === domain))
      return refused(
        `The report is about ${domain}, which is not one of your domains (${domains.join(', ') || 'none yet'})`,
      );
    // The same report is the same reporter, id, domain and content: a forged one under a real id blocks nothing.
    const contentHash = createHash('sha256').update(read_.xml).digest('hex');
    const earlier = await repo.findReport(tenantId, report.orgName, report.reportId, domain, contentHash);
    const stored = earlier
      ? null
      : await repo.insertReport(
          tenantId,
          report,
          entry.source,
          gzipSync(read_.xml),
          contentHash,
          deps.clock.now(),
          entry,
        );
    if (stored) {
      await deps.audit.record(actor, {
        tenantId,
        action: 'dmarc.report_added',
        targetType: 'dmarc_report',
        targetId: stored.id,
        details: {
          domain,
          reporter: stored.orgName,
          report_id: stored.reportId,
          source: entry.source,
          rows: stored.rows,
        },
      });
      return { outcome: 'added', reason: '', row: stored };
    }
    const row =
      earlier ?? (await repo.findReport(tenantId, report.orgName, report.reportId, domain, contentHash));
    if (!row) throw new Error('a report neither stored nor found');
    await repo.recordIntake(tenantId, { ...entry, outcome: 'duplicate', reportId: row.id });
    return { outcome: 'duplicate', reason: '', row };
  }

  async function publishedOf(domain: string): Promise<DomainOverview['published']> {
    const now = deps.clock.now().getTime();
    const kept = published.get(domain);
    if (kept && now - kept.at < PUBLISHED_TTL_MS) return kept.value;
    let value: DomainOverview['published'];
    if (!deps.resolveTxt) value = { status: 'unknown', record: null, policy: null, reportsHere: false };
    else {
      try {
        const record = dmarcRecordOf(await deps.resolveTxt(`_dmarc.${domain}`, 'TXT'));
        value = record
          ? {
              status: 'found',
              record: record.slice(0, 1000),
              policy: dmarcTag(record, 'p')?.toLowerCase() ?? null,
              reportsHere: (dmarcTag(record, 'rua') ?? '')
                .toLowerCase()
                .split(',')
                .some((uri) => uri.trim().replace(/!.*$/, '') === `mailto:${reportAddressOf(domain)}`),
            }
          : { status: 'missing', record: null, policy: null, reportsHere: false };
      } catch (error) {
        const code = (error as { code?: string }).code;
        value =
          code === 'ENOTFOUND' || code === 'ENODATA'
            ? { status: 'missing', record: null, policy: null, reportsHere: false }
            : { status: 'unknown', record: null, policy: null, reportsHere: false };
      }
    }
    published.set(domain, { at: now, value });
    if (published.size > 10_000) published.delete(published.keys().next().value as string);
    return value;
  }

  return {
    /** One uploaded report file taken in; a 400 saying why a file is not a report of the tenant's. */
    async ingest(
      tenantId: string,
      file: Uint8Array,
      source: ReportSource,
      actor: Actor,
    ): Promise<UploadResult> {
      const kind = uploadKindOf(file);
      if (kind !== 'aggregate' && deps.failureTls)
        return deps.failureTls.ingest(tenantId, kind, file, source, actor);
      const done = await takeIn(
        tenantId,
        file,
        { source, kind: 'aggregate', outcome: 'added', sender: actor.email ?? '', fileName: '' },
        actor,
      );
      if (!done.row) throw new AppError('validation_error', done.reason);
      const { begin, end, messages, rows, orgName, reportId, id, domain } = reportOf(done.row);
      return {
        id,
        duplicate: done.outcome === 'duplicate',
        domain,
        orgName,
        reportId,
        begin,
        end,
        messages,
        rows,
      };
    },

    /**
     * A message sent to a report address of the tenant's, as the gateway stored it: each report file
     * in it taken in or refused, each recorded once however often the message is processed. The
     * message is never delivered and never scanned.
     */
    async takeInMail(input: {
      tenantId: string;
      raw: Buffer;
      inboundId: string;
      mailFrom: string;
      actor: Actor;
    }): Promise<Array<{ outcome: IntakeOutcome; reason: string }>> {
      const parsed = await parseMessage(input.raw);
      const base = {
        source: 'mail' as const,
        // parseMessage gives header values on one line, without control characters.
        sender: (parsed.fromAddress || input.mailFrom).slice(0, 320),
        subject: parsed.subject.slice(0, 500),
        inboundId: input.inboundId,
      };
      const files = reportFilesOf(input.raw, parsed);
      if (files.length === 0) {
        await repo.recordIntake(input.tenantId, {
          ...base,
          kind: 'unknown',
          outcome: 'refused',
          reason: NOT_READ.unknown,
          part: 0,
        });
        return [{ outcome: 'refused', reason: NOT_READ.unknown }];
      }
      const outcomes: Array<{ outcome: IntakeOutcome; reason: string }> = [];
      for (const [part, file] of files.entries()) {
        const entry = { ...base, fileName: file.name.slice(0, 255), kind: file.kind, part };
        if ((file.kind === 'failure' || file.kind === 'tls') && deps.failureTls) {
          const done = await deps.failureTls.takeIn(
            input.tenantId,
            file.kind,
            file.content,
            entry,
            input.actor,
          );
          outcomes.push({ outcome: done.outcome, reason: done.reason });
          continue;
        }
        if (file.kind !== 'aggregate') {
          await repo.recordIntake(input.tenantId, {
            ...entry,
            outcome: 'refused',
            reason: NOT_READ[file.kind],
          });
          outcomes.push({ outcome: 'refused', reason: NOT_READ[file.kind] });
          continue;
        }
        const done = await takeIn(input.tenantId, file.content, { ...entry, outcome: 'added' }, input.actor);
        outcomes.push({ outcome: done.outcome, reason: done.reason });
      }
      return outcomes;
    },

    async intake(tenantId: string, outcome: IntakeOutcome | undefined, limit: number, offset: number) {
      const found = await repo.intake(tenantId, outcome, limit, offset);
      return { total: found.total, items: found.items.map(intakeOf) };
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
        items: found.items.map(recordOf),
      };
    },

    /** The rows of a filter as CSV (at most RECORDS_CSV_MAX), in the filter's order. */
    async recordsCsv(filter: Omit<RecordsFilter, 'limit' | 'offset'>): Promise<string> {
      const found = await repo.records({ ...filter, limit: RECORDS_CSV_MAX, offset: 0 });
      return toCsv(CSV_COLUMNS, found.items.map(recordOf));
    },

    /**
     * Per domain of the tenant's, over the last `days` UTC days: its report address, its published
     * DMARC record, the messages reported and how many passed, per day, and the sources failing most.
     */
    async overview(tenantId: string, days: number): Promise<DmarcOverview> {
      const now = deps.clock.now();
      const first = new Date(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - (days - 1)),
      );
      const from = first.toISOString().slice(0, 10);
      const [domains, sums] = await Promise.all([
        deps.domainsOf(tenantId),
        repo.overview(tenantId, from, TOP_FAILING),
      ]);
      const dayList = Array.from({ length: days }, (_, i) =>
        new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10),
      );
      const names = [
        ...new Set([...domains.map((d) => d.toLowerCase()), ...sums.reports.map((r) => r.domain)]),
      ];
      const records = await Promise.all(names.map((d) => publishedOf(d)));
      return {
        days,
        domains: names.map((domain, i): DomainOverview => {
          const perDay = new Map(sums.days.filter((d) => d.domain === domain).map((d) => [d.day, d]));
          const trend = dayList.map((day) => ({
            day,
            messages: perDay.get(day)?.messages ?? 0,
            passed: perDay.get(day)?.passed ?? 0,
          }));
          const reports = sums.reports.find((r) => r.domain === domain);
          return {
            domain,
            reportAddress: reportAddressOf(domain),
            published: records[i]!,
            reportedPolicy: reports?.policy ?? null,
            reports: reports?.reports ?? 0,
            messages: trend.reduce((n, d) => n + d.messages, 0),
            passed: trend.reduce((n, d) => n + d.passed, 0),
            trend,
            topFailing: sums.failing
              .filter((f) => f.domain === domain)
              .map(({ sourceIp, messages, reports: count }) => ({ sourceIp, messages, reports: count })),
          };
        }),
      };
    },

    close: () => pool.close(),
  };
}
export type DmarcService = ReturnType<typeof createDmarcService>;
