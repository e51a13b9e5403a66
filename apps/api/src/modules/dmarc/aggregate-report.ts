import { isIP } from 'node:net';
import { gunzipSync } from 'node:zlib';
import type { DmarcResult } from '@moat/contracts/dmarc';
import { SaxesParser } from 'saxes';
import { unzipBounded } from '../../lib/unzip-bounded.ts';

/*
 * DMARC aggregate reports (RFC 7489 appendix C, and DMARCbis's schema, issue 37): the XML a
 * receiver sends about the mail it saw from a domain, as a file — plain, gzip or zip, as reporters
 * send them. The XML is read as a stream of tags (saxes), never as a tree, with the quirks real
 * reporters have: a namespace or none (DMARCbis), upper-case results, empty or missing optional
 * fields, several DKIM and SPF results per row. What is not a report is refused with a reason a
 * person can act on: not XML, a DTD or entity (no entity is ever expanded), an archive that
 * inflates past its bound, too many rows, no report metadata or policy.
 */

export const REPORT_LIMITS = {
  /** The file as uploaded or attached (compressed or not). */
  fileBytes: 10 * 1024 * 1024,
  /** The XML once inflated: a zip or gzip bomb stops here. */
  xmlBytes: 50 * 1024 * 1024,
  /** Rows (sources) in one report. */
  records: 100_000,
  /** Characters kept of one text field. */
  fieldChars: 500,
} as const;

export interface AuthResult {
  domain: string;
  /** DKIM: the selector; SPF: the scope (`mfrom`, `helo`). */
  selector?: string;
  scope?: string;
  result: string;
}

export interface ReportRecord {
  sourceIp: string;
  count: number;
  disposition: string;
  /** DMARC's own verdicts of the row: DKIM and SPF aligned with the header From, or not. */
  dkim: DmarcResult;
  spf: DmarcResult;
  reasons: Array<{ type: string; comment: string }>;
  headerFrom: string;
  envelopeFrom: string;
  envelopeTo: string;
  dkimResults: AuthResult[];
  spfResults: AuthResult[];
}

export interface AggregateReport {
  orgName: string;
  email: string;
  reportId: string;
  begin: Date;
  end: Date;
  policy: {
    domain: string;
    adkim: string;
    aspf: string;
    p: string;
    sp: string;
    pct: number | null;
  };
  records: ReportRecord[];
}

/** Why a file is not taken in: a sentence for the console. */
export class ReportRefused extends Error {}

const refuse = (why: string): never => {
  throw new ReportRefused(why);
};

/** Bytes some reporters add after a gzip file (Mimecast: a CRLF), which are no part of it. */
const TRAILING = new Set([0x0d, 0x0a, 0x20, 0x09]);
/** At most this many of them are tried off. */
const TRAILING_MAX = 4;

/**
 * A gzip report file inflated within the bound. A file that fails only for the line end a
 * reporter's mailer put after the gzip trailer (Mimecast ends its files with CRLF) is read without
 * it, a byte at a time; anything else damaged is refused.
 */
export function gunzipReport(file: Uint8Array): Buffer {
  const failed = (error: unknown): never =>
    (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE'
      ? refuse(`The gzip file inflates to more than ${REPORT_LIMITS.xmlBytes / 1024 / 1024} MB`)
      : refuse('The gzip file is damaged');
  let end = file.length;
  for (;;) {
    try {
      return gunzipSync(file.subarray(0, end), { maxOutputLength: REPORT_LIMITS.xmlBytes });
    } catch (error) {
      const more = file.length - end < TRAILING_MAX && end > 18 && TRAILING.has(file[end - 1]!);
      if (!more || (error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return failed(error);
      end--;
    }
  }
}

/** The XML of a report file: inflated (gzip, zip with one XML file) within the bound, or as it is. */
export function reportXml(file: Uint8Array): Buffer {
  if (file.length === 0) refuse('The file is empty');
  if (file.length > REPORT_LIMITS.fileBytes)
    refuse(`The file is larger than ${REPORT_LIMITS.fileBytes / 1024 / 1024} MB; no report is that large`);
  if (file[0] === 0x1f && file[1] === 0x8b) return gunzipReport(file);
  if (file[0] === 0x50 && file[1] === 0x4b) {
    let opened: ReturnType<typeof unzipBounded>;
    try {
      opened = unzipBounded(file, { bytes: REPORT_LIMITS.xmlBytes, entries: 5 });
    } catch {
      return refuse('The zip file is damaged');
    }
    if (opened.exceeded)
      refuse(`The zip file inflates to more than ${REPORT_LIMITS.xmlBytes / 1024 / 1024} MB`);
    const xml = opened.entries.filter(([name]) => /\.xml$/i.test(name));
    if (xml.length !== 1)
      refuse(`The zip file holds ${xml.length === 0 ? 'no' : xml.length} XML files; a report has one`);
    return Buffer.from(xml[0]![1]);
  }
  return Buffer.from(file);
}

const clip = (text: string) => text.trim().slice(0, REPORT_LIMITS.fieldChars);
const lower = (text: string) => clip(text).toLowerCase();
const alignment = (text: string): DmarcResult => (lower(text) === 'pass' ? 'pass' : 'fail');
/** A date as reporters write it: seconds since 1970 (some write them with a fraction). */
function epoch(text: string, what: string): Date {
  const seconds = Number(text.trim());
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 32_503_680_000)
    refuse(`The report's ${what} date is not a time ("${clip(text).slice(0, 40)}")`);
  return new Date(Math.floor(seconds) * 1000);
}

/** A file read: its XML (inflated once, kept as the raw report) and the report, or why it is refused. */
export type ReadReport = { xml: Uint8Array; report: AggregateReport } | { refused: string };

/** A file read whole, refusals as values (what a worker thread can send back). */
export function readReport(file: Uint8Array): ReadReport {
  try {
    const xml = reportXml(file);
    return { xml, report: parseReportXml(xml) };
  } catch (error) {
    if (error instanceof ReportRefused) return { refused: error.message };
    throw error;
  }
}

/** The report in a file, or ReportRefused saying why not. */
export function parseAggregateReport(file: Uint8Array): AggregateReport {
  return parseReportXml(reportXml(file));
}

/**
 * The encoding the XML declaration names, of those reporters use (UTF-8 by default, as XML says;
 * some write ISO-8859-1 or windows-1252 for a reporter name with accents).
 */
function declaredEncoding(xml: Buffer): 'utf-8' | 'latin1' | 'windows-1252' {
  const head = xml.subarray(0, 200).toString('latin1');
  const named = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(head)?.[1]?.toLowerCase();
  if (named === 'iso-8859-1' || named === 'latin1' || named === 'iso_8859-1') return 'latin1';
  if (named === 'windows-1252' || named === 'cp1252') return 'windows-1252';
  return 'utf-8';
}

/** The report in a file's XML (`reportXml`), or ReportRefused saying why not. */
export function parseReportXml(xml: Buffer): AggregateReport {
  const parser = new SaxesParser({ xmlns: false, position: false });
  // The path of open elements by local name (a namespace prefix, DMARCbis's, is dropped).
  const path: string[] = [];
  let text = '';
  const meta: Record<string, string> = {};
  const policy: Record<string, string> = {};
  const records: ReportRecord[] = [];
  let record: ReportRecord | null = null;
  let auth: (AuthResult & { kind: 'dkim' | 'spf' }) | null = null;
  let reason: { type: string; comment: string } | null = null;
  let root = '';

  parser.on('doctype', () => refuse('The report declares a DTD; reports never need one, and it is refused'));
  parser.on('opentag', (tag) => {
    const name = tag.name.slice(tag.name.indexOf(':') + 1).toLowerCase();
    if (path.length === 0) root = name;
    path.push(name);
    text = '';
    const at = path.join('/');
    if (at === 'feedback/record') {
      if (records.length >= REPORT_LIMITS.records)
        refuse(`The report has more than ${REPORT_LIMITS.records.toLocaleString('en')} rows`);
      record = {
        sourceIp: '',
        count: 0,
        disposition: 'none',
        dkim: 'fail',
        spf: 'fail',
        reasons: [],
        headerFrom: '',
        envelopeFrom: '',
        envelopeTo: '',
        dkimResults: [],
        spfResults: [],
      };
    } else if (at === 'feedback/record/auth_results/dkim' || at === 'feedback/record/auth_results/spf') {
      auth = { kind: name as 'dkim' | 'spf', domain: '', result: 'none' };
    } else if (at === 'feedback/record/row/policy_evaluated/reason') {
      reason = { type: '', comment: '' };
    }
  });
  parser.on('text', (chunk) => {
    text += chunk;
  });
  parser.on('cdata', (chunk) => {
    text += chunk;
  });
  parser.on('closetag', () => {
    const at = path.join('/');
    const name = path.pop()!;
    const value = text;
    text = '';
    if (at.startsWith('feedback/report_metadata/')) {
      if (at === 'feedback/report_metadata/date_range/begin') meta.begin = value;
      else if (at === 'feedback/report_metadata/date_range/end') meta.end = value;
      else if (path.length === 2) meta[name] = clip(value);
    } else if (at.startsWith('feedback/policy_published/') && path.length === 2) {
      policy[name] = clip(value);
    } else if (record) {
      const r = record as ReportRecord;
      if (at === 'feedback/record') {
        if (!r.sourceIp) refuse('A row of the report has no source address');
        records.push(r);
        record = null;
      } else if (at === 'feedback/record/row/source_ip') {
        const ip = clip(value);
        if (!isIP(ip)) refuse(`A row's source address is not an IP address ("${ip.slice(0, 60)}")`);
        // One spelling per address: `2001:DB8::1` and `2001:db8::1` are one source.
        r.sourceIp = ip.toLowerCase();
      } else if (at === 'feedback/record/row/count') {
        const count = Number(value.trim());
        if (!Number.isSafeInteger(count) || count < 0)
          refuse(`A row's count is not a number ("${clip(value).slice(0, 20)}")`);
        r.count = count;
      } else if (at === 'feedback/record/row/policy_evaluated/disposition')
        r.disposition = lower(value) || 'none';
      else if (at === 'feedback/record/row/policy_evaluated/dkim') r.dkim = alignment(value);
      else if (at === 'feedback/record/row/policy_evaluated/spf') r.spf = alignment(value);
      else if (reason && at === 'feedback/record/row/policy_evaluated/reason/type')
        reason.type = lower(value);
      else if (reason && at === 'feedback/record/row/policy_evaluated/reason/comment')
        reason.comment = clip(value);
      else if (reason && at === 'feedback/record/row/policy_evaluated/reason') {
        r.reasons.push(reason);
        reason = null;
      } else if (at === 'feedback/record/identifiers/header_from') r.headerFrom = lower(value);
      else if (at === 'feedback/record/identifiers/envelope_from') r.envelopeFrom = lower(value);
      else if (at === 'feedback/record/identifiers/envelope_to') r.envelopeTo = lower(value);
      else if (auth && path.length === 4 && path[3] === auth.kind) {
        if (name === 'domain') auth.domain = lower(value);
        else if (name === 'selector') auth.selector = clip(value);
        else if (name === 'scope') auth.scope = lower(value);
        else if (name === 'result') auth.result = lower(value) || 'none';
      } else if (
        auth &&
        (at === 'feedback/record/auth_results/dkim' || at === 'feedback/record/auth_results/spf')
      ) {
        const { kind, ...result } = auth;
        (kind === 'dkim' ? r.dkimResults : r.spfResults).push(result);
        auth = null;
      }
    }
  });

  try {
    // In slices: a large report is read as it is decoded, never as one string.
    const SLICE = 256 * 1024;
    const decoder = new TextDecoder(declaredEncoding(xml));
    for (let offset = 0; offset < xml.length; offset += SLICE)
      parser.write(decoder.decode(xml.subarray(offset, offset + SLICE), { stream: true }));
    parser.write(decoder.decode()).close();
  } catch (error) {
    if (error instanceof ReportRefused) throw error;
    refuse(
      `The file is not a readable XML report: ${(error as Error).message.split('\n')[0]!.slice(0, 200)}`,
    );
  }

  if (root !== 'feedback') refuse('The file is not a DMARC aggregate report (its XML has no <feedback>)');
  if (!meta.org_name || !meta.report_id)
    refuse('The report has no reporter or report id (report_metadata is incomplete)');
  if (meta.begin === undefined || meta.end === undefined) refuse('The report has no date range');
  const domain = (policy.domain ?? '').toLowerCase();
  if (!domain) refuse('The report names no domain (policy_published is missing)');
  const pct = policy.pct ? Number(policy.pct) : null;
  return {
    orgName: meta.org_name!,
    email: meta.email ?? '',
    reportId: meta.report_id!,
    begin: epoch(meta.begin!, 'start'),
    end: epoch(meta.end!, 'end'),
    policy: {
      domain,
      adkim: (policy.adkim || 'r').toLowerCase(),
      aspf: (policy.aspf || 'r').toLowerCase(),
      p: (policy.p || 'none').toLowerCase(),
      sp: (policy.sp || policy.p || 'none').toLowerCase(),
      pct: pct !== null && Number.isFinite(pct) ? pct : null,
    },
    records,
  };
}
