import { createHash } from 'node:crypto';
import { TLS_KEPT_DETAILS } from '@moat/contracts/dmarc';
import { z } from 'zod/mini';
import { gunzipReport, REPORT_LIMITS, ReportRefused } from './aggregate-report.ts';

/*
 * SMTP TLS reports (RFC 8460, issue 37): the JSON a sending server (Google, Microsoft, …) sends
 * about its TLS sessions to a domain's MX hosts under its MTA-STS or DANE policy — how many
 * succeeded and which failed and why. Plain or gzip (`application/tlsrpt+gzip`, `.json.gz`), within
 * the aggregate reports' bounds. Validated strictly: what is not a TLS report is refused with a
 * reason. Known variants are taken: `mx-host` and `policy-string` as a string or a list, missing
 * optional fields, date-times with an offset.
 */

const refuse = (why: string): never => {
  throw new ReportRefused(why);
};

/** Policies in one report, and failure details in all of them, at most. */
/** A report names a few policies (one per policy domain and MX set): more than 100 is no report. */
export const TLS_LIMITS = { policies: 100, failureDetails: REPORT_LIMITS.records } as const;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are dropped
const CONTROL = /[\u0000-\u001f\u007f]/g;
/** A UTF-16 half with no other half: JSON allows `"\ud800"`, PostgreSQL's text does not. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** A reporter's string as it may be kept: no control characters or lone surrogates, trimmed, bounded. */
const clip = (text: string) =>
  text.replace(CONTROL, ' ').replace(LONE_SURROGATE, '\ufffd').trim().slice(0, REPORT_LIMITS.fieldChars);
const text = z.pipe(z.string(), z.transform(clip));
const optionalText = z._default(text, '');
/** Sessions of one policy: at most a trillion (no receiver makes more), so any sum of reports stays exact. */
const count = z.number().check(z.int(), z.gte(0), z.lte(1e12));
/** A string, or a list of them (reporters write both). */
const textList = z.pipe(
  z.union([z.string(), z.array(z.string())]),
  z.transform((v) => (Array.isArray(v) ? v : [v]).slice(0, 100).map(clip)),
);
const dateTime = z.pipe(
  z.string(),
  z.transform((v, ctx) => {
    const date = new Date(v.trim());
    if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(v.trim())) {
      ctx.issues.push({ code: 'custom', message: `"${v.slice(0, 40)}" is not a date-time`, input: v });
      return z.NEVER;
    }
    return date;
  }),
);

const failureDetailSchema = z.object({
  'result-type': z.pipe(
    text,
    z.transform((v) => v.toLowerCase()),
  ),
  'sending-mta-ip': optionalText,
  'receiving-mx-hostname': optionalText,
  'receiving-mx-helo': optionalText,
  'receiving-ip': optionalText,
  'failed-session-count': count,
  'additional-information': optionalText,
  'failure-reason-code': optionalText,
});

const POLICY_TYPES = ['sts', 'tlsa', 'no-policy-found'] as const;

const policySchema = z.object({
  policy: z.object({
    'policy-type': z.pipe(
      z.string(),
      z.transform((v) => v.trim().toLowerCase()),
    ),
    'policy-string': z._default(textList, []),
    'policy-domain': z.pipe(
      text,
      z.transform((v) => v.toLowerCase().replace(/\.$/, '')),
    ),
    'mx-host': z._default(textList, []),
  }),
  summary: z.object({
    'total-successful-session-count': count,
    'total-failure-session-count': count,
  }),
  'failure-details': z._default(z.array(failureDetailSchema), []),
});

const reportSchema = z.object({
  'organization-name': text,
  'date-range': z.object({ 'start-datetime': dateTime, 'end-datetime': dateTime }),
  'contact-info': optionalText,
  'report-id': text,
  policies: z.array(policySchema).check(z.maxLength(TLS_LIMITS.policies)),
});

/** The `keep` details with the most failed sessions, in the reporter's order. */
function largest<D extends { 'failed-session-count': number }>(details: D[], keep: number): D[] {
  if (details.length <= keep) return details;
  const kept = new Set(
    details
      .map((d, i) => [d['failed-session-count'], i] as const)
      .sort((a, b) => b[0] - a[0] || a[1] - b[1])
      .slice(0, keep)
      .map(([, i]) => i),
  );
  return details.filter((_, i) => kept.has(i));
}

export interface TlsFailureDetail {
  resultType: string;
  sendingMtaIp: string;
  receivingMxHostname: string;
  receivingIp: string;
  failedSessions: number;
  additionalInformation: string;
  failureReasonCode: string;
}

export interface TlsPolicy {
  type: string;
  domain: string;
  strings: string[];
  mxHosts: string[];
  successful: number;
  failed: number;
  failureDetails: TlsFailureDetail[];
  /** Failure details reported beyond those kept. */
  moreFailureDetails: number;
}

export interface TlsReport {
  orgName: string;
  contact: string;
  reportId: string;
  begin: Date;
  end: Date;
  policies: TlsPolicy[];
  /** What the report says, hashed: the same report sent again is the same; another under its id is not. */
  hash: string;
}

/** The JSON of a report file: inflated (gzip) within the bound, or as it is. */
function reportJson(file: Uint8Array): string {
  if (file.length === 0) refuse('The file is empty');
  if (file.length > REPORT_LIMITS.fileBytes)
    refuse(`The file is larger than ${REPORT_LIMITS.fileBytes / 1024 / 1024} MB; no report is that large`);
  let bytes: Uint8Array = file;
  if (file[0] === 0x1f && file[1] === 0x8b) bytes = gunzipReport(file);
  return new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
}

/** Where in the report a problem is (`policies[0].summary`), for the reason. */
const pathOf = (path: ReadonlyArray<PropertyKey>) =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');

/** The report in a file (JSON or gzip), or ReportRefused saying why not. */
export function parseTlsReport(file: Uint8Array): TlsReport {
  const json = reportJson(file);
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    return refuse(`The file is not JSON: ${(error as Error).message.slice(0, 200)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    refuse('The file is not an SMTP TLS report (RFC 8460): its JSON is not an object');
  const object = value as Record<string, unknown>;
  if (!('policies' in object) || !('organization-name' in object) || !('report-id' in object))
    refuse(
      'The file is not an SMTP TLS report (RFC 8460): it has no organization-name, report-id and policies',
    );
  const parsed = reportSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return refuse(
      `The SMTP TLS report is not valid: ${pathOf(issue.path) || 'the report'}: ${issue.message}`.slice(
        0,
        500,
      ),
    );
  }
  const r = parsed.data;
  if (!r['organization-name'] || !r['report-id']) refuse('The report has no reporter or report id');
  if (r.policies.length === 0) refuse('The report has no policy');
  if (r['date-range']['end-datetime'] < r['date-range']['start-datetime'])
    refuse('The report ends before it starts');
  let details = 0;
  const policies = r.policies.map((p): TlsPolicy => {
    const type = p.policy['policy-type'];
    if (!(POLICY_TYPES as readonly string[]).includes(type))
      refuse(`A policy's type is "${type.slice(0, 40)}"; RFC 8460 knows sts, tlsa and no-policy-found`);
    const domain = p.policy['policy-domain'];
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domain))
      refuse(`A policy's domain is not a domain name ("${domain.slice(0, 60)}")`);
    details += p['failure-details'].length;
    if (details > TLS_LIMITS.failureDetails)
      refuse(`The report has more than ${TLS_LIMITS.failureDetails.toLocaleString('en')} failure details`);
    return {
      type,
      domain,
      strings: p.policy['policy-string'],
      mxHosts: p.policy['mx-host'],
      successful: p.summary['total-successful-session-count'],
      failed: p.summary['total-failure-session-count'],
      // The failures with the most sessions are kept; the rest are counted (a report may list 100,000).
      failureDetails: largest(p['failure-details'], TLS_KEPT_DETAILS).map((d) => ({
        resultType: d['result-type'],
        sendingMtaIp: d['sending-mta-ip'],
        receivingMxHostname: d['receiving-mx-hostname'] || d['receiving-mx-helo'],
        receivingIp: d['receiving-ip'],
        failedSessions: d['failed-session-count'],
        additionalInformation: d['additional-information'],
        failureReasonCode: d['failure-reason-code'],
      })),
      moreFailureDetails: Math.max(0, p['failure-details'].length - TLS_KEPT_DETAILS),
    };
  });
  const said = {
    orgName: r['organization-name'],
    contact: r['contact-info'],
    reportId: r['report-id'],
    begin: r['date-range']['start-datetime'],
    end: r['date-range']['end-datetime'],
    policies,
  };
  return { ...said, hash: createHash('sha256').update(JSON.stringify(said)).digest('hex') };
}
