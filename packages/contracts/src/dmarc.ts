import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder, textFilterParam } from './list.ts';

/**
 * DMARC (issue 37): the aggregate reports receivers send about the tenant's domains, taken in
 * once each, and every source they name. Admins only.
 */
export const DMARC_API = {
  /** POST a report file (XML, gzip or zip) as the request body; GET the reports taken in. */
  reports: '/api/v1/dmarc/reports',
  /** GET a report's XML as the reporter sent it. */
  rawReport: '/api/v1/dmarc/reports/:id/raw',
  /** GET the sources the reports name (Reports Explorer). */
  records: '/api/v1/dmarc/records',
  /** GET each domain's SPF record parsed and counted, its problems and a corrected record (SPF Management). */
  spf: '/api/v1/dmarc/spf',
  /** GET each domain's DKIM selectors (reports, mail, DNS), their keys checked, and a rotation plan (DKIM Management). */
  dkim: '/api/v1/dmarc/dkim',
  /** GET the same rows as CSV, under the same filters. */
  recordsCsv: '/api/v1/dmarc/records.csv',
  /** GET what came to the report addresses and the uploads: taken in, or refused and why. */
  intake: '/api/v1/dmarc/intake',
  /** GET per domain: the report address, messages reported, pass rate, policy, trend, failing sources. */
  overview: '/api/v1/dmarc/overview',
  /** GET the failure reports (RFC 6591) taken in, redacted, newest first. */
  failureReports: '/api/v1/dmarc/failure-reports',
  /** GET the SMTP TLS reports (RFC 8460): per domain the sessions that succeeded and failed, each report. */
  tlsReports: '/api/v1/dmarc/tls-reports',
  /** GET per domain: what to change next, computed and explained. */
  recommendations: '/api/v1/dmarc/recommendations',
  /** GET the reverse names (PTR) of source addresses (`ip` repeated). */
  reverse: '/api/v1/dmarc/reverse',
  /** GET the domains' DNS records as last polled, and the log of their changes (DNS Change-Log). */
  dnsChanges: '/api/v1/dmarc/dns-changes',
  /** POST: poll the domains' DNS records now ("Check now"). */
  dnsCheck: '/api/v1/dmarc/dns-changes/check',
  /** GET the recent DMARC alerts (a record changed, a new failing source, a pass-rate drop). */
  alerts: '/api/v1/dmarc/alerts',
  /** PUT whether the DMARC alerts are emailed to the admins. */
  alertSettings: '/api/v1/dmarc/alerts/settings',
} as const;

export const reportIdParamsSchema = z.object({ id: z.uuid() });

export const rawReportPath = (id: string) => DMARC_API.rawReport.replace(':id', encodeURIComponent(id));

/** The content types a report upload may carry (reporters' files are any of these). */
export const REPORT_UPLOAD_TYPES = [
  'application/octet-stream',
  'application/gzip',
  'application/x-gzip',
  'application/zip',
  'application/x-zip-compressed',
  'application/xml',
  'text/xml',
  // SMTP TLS reports (RFC 8460) and failure reports (an ARF message, RFC 6591).
  'application/json',
  'application/tlsrpt+json',
  'application/tlsrpt+gzip',
  'message/rfc822',
] as const;

/** What an upload did: taken in, or the same report again (counted once). */
export const uploadResultSchema = z.object({
  id: z.string(),
  duplicate: z.boolean(),
  domain: z.string(),
  orgName: z.string(),
  reportId: z.string(),
  begin: z.string(),
  end: z.string(),
  messages: z.number(),
  rows: z.number(),
  /** What the file was: an aggregate report (when absent), a failure report or a TLS report. */
  kind: z.optional(z.enum(['aggregate', 'failure', 'tls'])),
});
export type UploadResult = z.infer<typeof uploadResultSchema>;

/** Where a report came from: an admin's upload, or mail to the tenant's report address. */
export const REPORT_SOURCES = ['upload', 'mail'] as const;
export type ReportSource = (typeof REPORT_SOURCES)[number];
/** DMARC's verdict of a row, and each of its DKIM and SPF alignments. */
export const DMARC_RESULTS = ['pass', 'fail'] as const;
export type DmarcResult = (typeof DMARC_RESULTS)[number];

export const reportSchema = z.object({
  id: z.string(),
  domain: z.string(),
  orgName: z.string(),
  orgEmail: z.string(),
  reportId: z.string(),
  begin: z.string(),
  end: z.string(),
  policy: z.object({
    p: z.string(),
    sp: z.string(),
    adkim: z.string(),
    aspf: z.string(),
    pct: z.nullable(z.number()),
  }),
  messages: z.number(),
  rows: z.number(),
  source: z.enum(REPORT_SOURCES),
  receivedAt: z.string(),
});
export type DmarcReport = z.infer<typeof reportSchema>;

export const reportsResponseSchema = z.object({ total: z.number(), items: z.array(reportSchema) });

export const RECORD_SORTS = ['begin', 'count', 'source_ip'] as const;

export const recordsQuerySchema = z
  .extend(listQuerySchema(RECORD_SORTS, 'begin'), {
    domain: textFilterParam,
    /** A source address, or the start of one (`203.0.113.`). */
    ip: z.optional(z.string().check(z.trim(), z.maxLength(64), z.regex(/^[0-9a-fA-F.:]*$/))),
    /** The report a row belongs to (the raw report's drill-down). */
    report: z.optional(z.uuid()),
    dmarc: z.optional(z.enum(DMARC_RESULTS)),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE));
export type RecordsQuery = z.input<typeof recordsQuerySchema>;

const authResultSchema = z.object({
  domain: z.string(),
  selector: z.optional(z.string()),
  scope: z.optional(z.string()),
  result: z.string(),
});

export const recordSchema = z.object({
  id: z.string(),
  reportId: z.string(),
  orgName: z.string(),
  domain: z.string(),
  begin: z.string(),
  end: z.string(),
  sourceIp: z.string(),
  count: z.number(),
  disposition: z.string(),
  dkim: z.enum(DMARC_RESULTS),
  spf: z.enum(DMARC_RESULTS),
  /** Aligned DKIM or SPF: DMARC passes. */
  dmarc: z.enum(DMARC_RESULTS),
  headerFrom: z.string(),
  envelopeFrom: z.string(),
  dkimResults: z.array(authResultSchema),
  spfResults: z.array(authResultSchema),
});
export type DmarcRecord = z.infer<typeof recordSchema>;

export const recordsResponseSchema = z.object({
  total: z.number(),
  /** Messages the matching rows stand for, and how many of them passed DMARC. */
  messages: z.number(),
  passed: z.number(),
  items: z.array(recordSchema),
});
export type RecordsResponse = z.infer<typeof recordsResponseSchema>;

/**
 * The local part of each tenant domain's report address: receivers send aggregate (`rua`) and
 * failure (`ruf`) reports to `dmarc-reports@<the domain>`. An address in the domain itself needs
 * no external-destination record (RFC 7489 §7.1). Mail to it is taken in as reports, never
 * delivered onward and never scanned.
 */
export const REPORT_LOCAL_PART = 'dmarc-reports';
export const reportAddressOf = (domain: string) => `${REPORT_LOCAL_PART}@${domain.toLowerCase()}`;
/** Whether an address is a report address (of any domain: whether the domain is served is the gateway's). */
export const isReportAddress = (address: string) => address.toLowerCase().startsWith(`${REPORT_LOCAL_PART}@`);

/** What became of a file sent or uploaded: a new report, one already taken in, or refused. */
export const INTAKE_OUTCOMES = ['added', 'duplicate', 'refused'] as const;
export type IntakeOutcome = (typeof INTAKE_OUTCOMES)[number];
/** What a file was: an aggregate report, or something that is not one of the reports Moat reads. */
export const INTAKE_KINDS = ['aggregate', 'failure', 'tls', 'unknown'] as const;
export type IntakeKind = (typeof INTAKE_KINDS)[number];

export const intakeSchema = z.object({
  id: z.string(),
  receivedAt: z.string(),
  source: z.enum(REPORT_SOURCES),
  sender: z.string(),
  subject: z.string(),
  fileName: z.string(),
  kind: z.enum(INTAKE_KINDS),
  outcome: z.enum(INTAKE_OUTCOMES),
  reason: z.string(),
  /** The report taken in (added or duplicate), for the Explorer's drill-down. */
  reportId: z.nullable(z.string()),
});
export type DmarcIntake = z.infer<typeof intakeSchema>;

export const intakeQuerySchema = z.object({
  outcome: z.optional(z.enum(INTAKE_OUTCOMES)),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 20),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
});
export const intakeResponseSchema = z.object({ total: z.number(), items: z.array(intakeSchema) });

/** The Overview's periods, in days. */
export const OVERVIEW_DAYS = [7, 30, 90, 365] as const;
export const overviewQuerySchema = z.object({
  days: z._default(
    z.coerce
      .number()
      .check(
        z.refine((n) => (OVERVIEW_DAYS as readonly number[]).includes(n), 'days must be 7, 30, 90 or 365'),
      ),
    30,
  ),
});

export const domainOverviewSchema = z.object({
  domain: z.string(),
  /** Where the domain's receivers send their reports, and the DMARC tag that says so. */
  reportAddress: z.string(),
  /** The domain's published DMARC record (`_dmarc.<domain>` TXT), null when none; `unknown`: the lookup failed. */
  published: z.object({
    status: z.enum(['found', 'missing', 'unknown']),
    record: z.nullable(z.string()),
    policy: z.nullable(z.string()),
    /** Whether its `rua` names this report address. */
    reportsHere: z.boolean(),
  }),
  /** The policy the latest report saw (the receivers' reading), null before any report. */
  reportedPolicy: z.nullable(z.string()),
  reports: z.number(),
  messages: z.number(),
  passed: z.number(),
  /** Messages per day of the period (UTC days, oldest first), and how many passed. */
  trend: z.array(z.object({ day: z.string(), messages: z.number(), passed: z.number() })),
  /** The sources whose mail failed DMARC most in the period. */
  topFailing: z.array(z.object({ sourceIp: z.string(), messages: z.number(), reports: z.number() })),
});
export type DomainOverview = z.infer<typeof domainOverviewSchema>;

export const overviewResponseSchema = z.object({
  days: z.number(),
  domains: z.array(domainOverviewSchema),
});
export type DmarcOverview = z.infer<typeof overviewResponseSchema>;

/**
 * The DMARC record a domain should publish so its reports come here: its own record with this
 * report address added to `rua` (and `ruf`), or, with none published, a monitoring record to
 * start from (`p=none`: nothing changes for the domain's mail until the reports are read).
 */
export function suggestedDmarcRecord(published: string | null, address: string): string {
  const mailto = `mailto:${address}`;
  if (!published || !/^v\s*=\s*DMARC1\b/i.test(published.trim()))
    return `v=DMARC1; p=none; rua=${mailto}; ruf=${mailto}; fo=1`;
  const tags = published
    .split(';')
    .map((t) => t.trim())
    .filter(Boolean);
  const withAddress = (name: 'rua' | 'ruf') => {
    const index = tags.findIndex((t) => new RegExp(`^${name}\\s*=`, 'i').test(t));
    if (index < 0) tags.push(`${name}=${mailto}`);
    else {
      const uris = tags[index]!.replace(/^\w+\s*=\s*/, '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      if (!uris.some((u) => u.toLowerCase() === mailto.toLowerCase())) uris.push(mailto);
      tags[index] = `${name}=${uris.join(',')}`;
    }
  };
  withAddress('rua');
  withAddress('ruf');
  return tags.join('; ');
}

/** The tags of a DMARC record (`v=DMARC1; p=none; …`), names lower-cased; null when it is not one. */
export function dmarcTags(record: string | null): Record<string, string> | null {
  if (!record || !/^v\s*=\s*DMARC1\b/i.test(record.trim())) return null;
  const tags: Record<string, string> = {};
  for (const part of record.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) tags[part.slice(0, at).trim().toLowerCase()] ??= part.slice(at + 1).trim();
  }
  return tags;
}

/**
 * Recommendations (issue 37): what to change next for each domain, computed from its published
 * record, its reports over the period, its SPF record and its DKIM keys, most urgent first. Each
 * is a code with the figures its explanation needs; the console words it.
 */
export const RECOMMENDATION_CODES = [
  'publish_record',
  'lookup_failed',
  'send_reports_here',
  'no_reports_yet',
  'fix_source',
  'keep_monitoring',
  'move_to_quarantine',
  'raise_pct',
  'move_to_reject',
  'subdomain_policy',
  'spf_problem',
  'dkim_problem',
  'enforced',
] as const;
export type RecommendationCode = (typeof RECOMMENDATION_CODES)[number];
export const RECOMMENDATION_SEVERITIES = ['action', 'warning', 'info', 'done'] as const;
export type RecommendationSeverity = (typeof RECOMMENDATION_SEVERITIES)[number];

export const recommendationSchema = z.object({
  code: z.enum(RECOMMENDATION_CODES),
  severity: z.enum(RECOMMENDATION_SEVERITIES),
  /** The figures and names its explanation needs (pass rate, source, messages, policy…). */
  params: z.record(z.string(), z.union([z.string(), z.number()])),
  /** A DNS TXT record to publish, when the step is one: its name and value. */
  record: z.nullable(z.object({ name: z.string(), value: z.string() })),
  /** A source the step is about, for the Explorer's drill-down. */
  sourceIp: z.nullable(z.string()),
});
export type Recommendation = z.infer<typeof recommendationSchema>;

export const recommendationsResponseSchema = z.object({
  days: z.number(),
  /** The thresholds the steps are computed with, for the console's explanations. */
  thresholds: z.object({
    quarantine: z.number(),
    reject: z.number(),
    minMessages: z.number(),
    minDays: z.number(),
  }),
  domains: z.array(
    z.object({
      domain: z.string(),
      policy: z.nullable(z.string()),
      messages: z.number(),
      /** Share of the domain's authenticated mail that is aligned (the rate a stricter policy needs), %. */
      alignedRate: z.nullable(z.number()),
      recommendations: z.array(recommendationSchema),
    }),
  ),
});
export type RecommendationsResponse = z.infer<typeof recommendationsResponseSchema>;

/** Reverse names (PTR) of source addresses, looked up for the Explorer's visible rows. */
export const REVERSE_MAX = 50;
export const reverseQuerySchema = z.object({
  ip: z.pipe(
    z.transform((v: unknown) => (Array.isArray(v) ? v : v === undefined ? [] : [v])),
    z
      .array(z.string().check(z.maxLength(64), z.regex(/^[0-9a-fA-F.:]+$/)))
      .check(z.minLength(1), z.maxLength(REVERSE_MAX)),
  ),
});
export const reverseResponseSchema = z.object({
  /** Each address asked: its name, or null when it has none (or the lookup failed). */
  names: z.record(z.string(), z.nullable(z.string())),
});
export type ReverseResponse = z.infer<typeof reverseResponseSchema>;

/**
 * SPF Management (issue 37): each of the tenant's domains' SPF record (RFC 7208) looked up now,
 * parsed, its includes and redirect expanded into a tree, its DNS lookups counted against the
 * limits receivers hold it to, its problems named, and a corrected record to copy.
 */
export const SPF_LIMITS = {
  /** Terms that make a receiver ask DNS (include, a, mx, ptr, exists, redirect): more is a permerror. */
  lookups: 10,
  /** Lookups that find nothing (no answer, or no such name): more is a permerror. */
  voidLookups: 2,
  /** A record longer than this may not fit in one DNS answer over UDP. */
  recordBytes: 512,
} as const;

export const SPF_QUALIFIERS = ['+', '-', '~', '?'] as const;
export type SpfQualifier = (typeof SPF_QUALIFIERS)[number];
/** The record's terms: its mechanisms, its modifiers, and what is neither (`invalid`). */
export const SPF_TERM_KINDS = [
  'all',
  'include',
  'a',
  'mx',
  'ptr',
  'ip4',
  'ip6',
  'exists',
  'redirect',
  'exp',
  'modifier',
  'invalid',
] as const;
export type SpfTermKind = (typeof SPF_TERM_KINDS)[number];

/** Why a lookup gave no answer: the domain (or an include) could not be checked. */
export const SPF_FAILURES = ['timeout', 'servfail', 'refused', 'unreachable', 'failed'] as const;
export type SpfFailure = (typeof SPF_FAILURES)[number];

/** What an expanded domain of the tree is: checked, or why not (further). */
export const SPF_NODE_STATUSES = [
  'ok',
  'no_record',
  'multiple_records',
  'failed',
  'cycle',
  'too_deep',
  'not_checked',
] as const;
export type SpfNodeStatus = (typeof SPF_NODE_STATUSES)[number];

export const SPF_SEVERITIES = ['error', 'warning', 'info'] as const;
export type SpfSeverity = (typeof SPF_SEVERITIES)[number];

/** Every problem the check names; each has its words in the console. */
export const SPF_PROBLEMS = [
  'no_record',
  'multiple_records',
  'too_many_lookups',
  'too_many_void_lookups',
  'pass_all',
  'neutral_all',
  'no_all',
  'ptr',
  'unknown_term',
  'bad_ip4',
  'bad_ip6',
  'bad_domain',
  'duplicate_modifier',
  'include_no_record',
  'include_failed',
  'term_failed',
  'void_term',
  'too_many_mx',
  'cycle',
  'too_deep',
  'redirect_ignored',
  'after_all',
  'record_too_long',
  'macro',
  'incomplete',
] as const;
export type SpfProblemCode = (typeof SPF_PROBLEMS)[number];

/** Every change (or note) the corrected record comes with. */
export const SPF_CHANGES = [
  'merged',
  'removed_invalid',
  'removed_ptr',
  'removed_duplicate',
  'removed_include_no_record',
  'removed_cycle',
  'removed_void',
  'removed_redirect',
  'moved_all',
  'pass_all_to_fail',
  'neutral_to_softfail',
  'added_all',
  'flattened',
  'still_too_many_lookups',
  'split_strings',
] as const;
export type SpfChangeCode = (typeof SPF_CHANGES)[number];

export const spfQuerySchema = z.object({
  /** One of the tenant's domains only; all of them by default. */
  domain: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.toLowerCase(),
        z.minLength(1),
        z.maxLength(253),
        z.regex(/^[a-z0-9._-]+\.?$/, 'must be a domain name (for example example.com)'),
      ),
  ),
});
export type SpfQuery = z.input<typeof spfQuerySchema>;

export const spfTermSchema = z.object({
  /** The term as written. */
  text: z.string(),
  kind: z.enum(SPF_TERM_KINDS),
  /** A mechanism's qualifier (`+` when none is written); null for a modifier. */
  qualifier: z.nullable(z.enum(SPF_QUALIFIERS)),
  /** Its domain or network, as written. */
  value: z.nullable(z.string()),
  /** It makes a receiver ask DNS: it counts against the limit of lookups. */
  counted: z.boolean(),
  /** Its lookup found nothing (a void lookup). */
  void: z.boolean(),
  /** Its lookup failed (no answer in time, a server failure): not checked. */
  failed: z.boolean(),
  /** Past the limit of lookups: a receiver stops before it, with a permerror. */
  beyondLimit: z.boolean(),
});
export type SpfTerm = z.infer<typeof spfTermSchema>;

/** A domain of the tree: the domain checked, or one it includes or redirects to. */
export interface SpfNode {
  domain: string;
  /** How the parent reached it; null for the domain itself. */
  via: 'include' | 'redirect' | null;
  qualifier: SpfQualifier | null;
  record: string | null;
  status: SpfNodeStatus;
  /** What the lookup failed with, when the status is `failed`. */
  failure: SpfFailure | null;
  /** The lookups it costs: its include or redirect, its own terms and its children's. */
  lookups: number;
  voidLookups: number;
  /** Its include or redirect is past the limit of lookups: receivers stop before it (permerror). */
  beyondLimit: boolean;
  terms: SpfTerm[];
  children: SpfNode[];
}

export const spfNodeSchema: z.ZodMiniType<SpfNode> = z.object({
  domain: z.string(),
  via: z.nullable(z.enum(['include', 'redirect'])),
  qualifier: z.nullable(z.enum(SPF_QUALIFIERS)),
  record: z.nullable(z.string()),
  status: z.enum(SPF_NODE_STATUSES),
  failure: z.nullable(z.enum(SPF_FAILURES)),
  lookups: z.number(),
  voidLookups: z.number(),
  beyondLimit: z.boolean(),
  terms: z.array(spfTermSchema),
  get children() {
    return z.array(spfNodeSchema);
  },
});

export const spfProblemSchema = z.object({
  code: z.enum(SPF_PROBLEMS),
  severity: z.enum(SPF_SEVERITIES),
  /** The domain whose record has it (the domain itself, or one it includes). */
  domain: z.string(),
  /** The term concerned, as written. */
  term: z.nullable(z.string()),
  /** A number the problem is about (lookups, records, bytes). */
  count: z.nullable(z.number()),
  /** The problem in plain English. */
  message: z.string(),
});
export type SpfProblem = z.infer<typeof spfProblemSchema>;

export const spfChangeSchema = z.object({
  code: z.enum(SPF_CHANGES),
  /** The term changed or removed, as written; null when the change is not about one term. */
  term: z.nullable(z.string()),
  /** What it became. */
  replacement: z.nullable(z.string()),
  domain: z.nullable(z.string()),
  count: z.nullable(z.number()),
  message: z.string(),
});
export type SpfChange = z.infer<typeof spfChangeSchema>;

export const spfDomainSchema = z.object({
  domain: z.string(),
  /** False: the lookup of the domain's own record failed; nothing else is known. */
  checked: z.boolean(),
  failure: z.nullable(z.enum(SPF_FAILURES)),
  /** The domain's SPF records as published (one, when all is well). */
  records: z.array(z.string()),
  lookups: z.number(),
  voidLookups: z.number(),
  /** False: the check stopped at its own bounds (lookups, time): the counts are at least these. */
  complete: z.boolean(),
  tree: z.nullable(spfNodeSchema),
  problems: z.array(spfProblemSchema),
  /** A record to publish instead, and why; null when none is needed or none can be computed. */
  corrected: z.nullable(
    z.object({ record: z.string(), lookups: z.number(), changes: z.array(spfChangeSchema) }),
  ),
});
export type SpfDomain = z.infer<typeof spfDomainSchema>;

export const spfResponseSchema = z.object({
  limits: z.object({ lookups: z.number(), voidLookups: z.number() }),
  checkedAt: z.string(),
  domains: z.array(spfDomainSchema),
});
export type SpfResponse = z.infer<typeof spfResponseSchema>;

/**
 * DNS Change-Log (issue 37): the records of each domain Moat polls, per kind. `dkim` is one
 * selector's key (the selectors the reports named).
 */
export const DNS_RECORD_KINDS = ['spf', 'dmarc', 'dkim', 'mx', 'mta_sts', 'tls_rpt'] as const;
export type DnsRecordKind = (typeof DNS_RECORD_KINDS)[number];
/** Why a poll of a record gave no answer (it is then kept as it was last seen). */
export const DNS_POLL_FAILURES = ['timeout', 'servfail', 'refused', 'unreachable', 'failed'] as const;
export type DnsPollFailure = (typeof DNS_POLL_FAILURES)[number];

/** A record as last polled: `value` null when none is published (or none was ever read). */
export const dnsRecordSchema = z.object({
  domain: z.string(),
  kind: z.enum(DNS_RECORD_KINDS),
  /** The name asked (`_dmarc.example.com`). */
  name: z.string(),
  /** The selector, for a DKIM key. */
  selector: z.nullable(z.string()),
  /** The answer normalised: TXT strings joined, records sorted one a line; null: none published. */
  value: z.nullable(z.string()),
  /** False until a poll answered: then the value is not known yet. */
  known: z.boolean(),
  firstSeenAt: z.nullable(z.string()),
  /** The last poll that answered. */
  checkedAt: z.nullable(z.string()),
  /** The last change seen (null: unchanged since first seen). */
  changedAt: z.nullable(z.string()),
  /** The latest poll failed (the value is the one last seen). */
  failure: z.nullable(z.enum(DNS_POLL_FAILURES)),
  failedAt: z.nullable(z.string()),
});
export type DnsRecord = z.infer<typeof dnsRecordSchema>;

/** One entry of the change log: a record's value before and after (`first`: its first reading). */
export const dnsChangeSchema = z.object({
  id: z.string(),
  domain: z.string(),
  kind: z.enum(DNS_RECORD_KINDS),
  name: z.string(),
  selector: z.nullable(z.string()),
  before: z.nullable(z.string()),
  after: z.nullable(z.string()),
  first: z.boolean(),
  observedAt: z.string(),
});
export type DnsChange = z.infer<typeof dnsChangeSchema>;

export const dnsChangesQuerySchema = z.object({
  domain: z.optional(
    z
      .string()
      .check(
        z.trim(),
        z.toLowerCase(),
        z.maxLength(253),
        z.regex(/^[a-z0-9._-]*$/, 'must be a domain name (for example example.com)'),
      ),
  ),
  kind: z.optional(z.enum(DNS_RECORD_KINDS)),
  /** The change log of the last this many days. */
  days: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(3650)), 30),
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
});
export type DnsChangesQuery = z.input<typeof dnsChangesQuerySchema>;

export const dnsChangesResponseSchema = z.object({
  /** How often each domain is polled (DMARC_DNS_POLL_MINUTES). */
  pollMinutes: z.number(),
  /** The latest poll of any of the domains; null before the first. */
  polledAt: z.nullable(z.string()),
  /** The tenant's domains (the filter's choices). */
  domains: z.array(z.string()),
  records: z.array(dnsRecordSchema),
  changes: z.object({ total: z.number(), items: z.array(dnsChangeSchema) }),
});
export type DnsChangesResponse = z.infer<typeof dnsChangesResponseSchema>;

export const dnsCheckResultSchema = z.object({
  polledAt: z.string(),
  domains: z.number(),
  /** Records whose value changed in this poll (first readings not counted). */
  changed: z.number(),
  /** Lookups that failed (their records kept as last seen). */
  failed: z.number(),
});
export type DnsCheckResult = z.infer<typeof dnsCheckResultSchema>;

export const DMARC_ALERT_KINDS = [
  'dmarc_record_changed',
  'dmarc_new_failing_source',
  'dmarc_pass_rate_drop',
] as const;
export type DmarcAlertKind = (typeof DMARC_ALERT_KINDS)[number];

export const dmarcAlertSchema = z.object({
  id: z.string(),
  kind: z.enum(DMARC_ALERT_KINDS),
  domain: z.string(),
  raisedAt: z.string(),
  /** The admins were emailed (false: the alert emails are off, or no admin to tell). */
  emailed: z.boolean(),
  /** A record changed: which, and its values. */
  record: z.nullable(
    z.object({
      kind: z.enum(DNS_RECORD_KINDS),
      name: z.string(),
      before: z.nullable(z.string()),
      after: z.nullable(z.string()),
    }),
  ),
  /** A new failing source: its address and the messages it sent that failed. */
  source: z.nullable(z.object({ ip: z.string(), failed: z.number(), messages: z.number() })),
  /** A pass-rate drop: the last 7 days against the 30 before, in percent. */
  passRate: z.nullable(
    z.object({
      recent: z.number(),
      prior: z.number(),
      recentMessages: z.number(),
      priorMessages: z.number(),
    }),
  ),
});
export type DmarcAlert = z.infer<typeof dmarcAlertSchema>;

export const dmarcAlertsResponseSchema = z.object({
  /** The alerts are emailed to the admins (their recipients in Settings). */
  email: z.boolean(),
  items: z.array(dmarcAlertSchema),
});
export type DmarcAlertsResponse = z.infer<typeof dmarcAlertsResponseSchema>;

export const dmarcAlertSettingsSchema = z.strictObject({ email: z.boolean() });
export type DmarcAlertSettings = z.infer<typeof dmarcAlertSettingsSchema>;

// ---------------------------------------------------------------------------------------------
// DKIM Management (issue 37): the selectors each domain signs with, seen in the aggregate reports,
// in the gateway's mail and in DNS; each key checked; a rotation plan. (Issue 38 adds Moat's own
// signing keys as a further place a selector is seen: `DKIM_SEEN_IN` grows, nothing else changes.)

/** The limits keys are judged by. */
export const DKIM_LIMITS = {
  /** Receivers ignore a signature made with a shorter RSA key (RFC 8301 §3.2). */
  minRsaBits: 1024,
  /** What a key should be today; 1024 is weak (NIST, M3AAWG). */
  goodRsaBits: 2048,
  /** A key older than this is due for rotation (M3AAWG: at least twice a year). */
  rotateAfterDays: 180,
  /** After switching signing to the new key, the old record stays this long for mail in flight. */
  keepOldDays: 7,
  /** After revoking (empty p=), the record goes this long after. */
  removeAfterDays: 7,
  /** Reports and mail looked back over. */
  lookbackDays: 180,
} as const;

/** Where a selector was seen: in the reports receivers send, in mail through the gateway, in DNS. */
export const DKIM_SEEN_IN = ['reports', 'mail', 'dns'] as const;
export type DkimSeenIn = (typeof DKIM_SEEN_IN)[number];

export const DKIM_KEY_TYPES = ['rsa', 'ed25519', 'unknown'] as const;
export type DkimKeyType = (typeof DKIM_KEY_TYPES)[number];

/** What the look-up of a selector's record found. */
export const DKIM_LOOKUPS = ['found', 'none', 'failed'] as const;
export type DkimLookup = (typeof DKIM_LOOKUPS)[number];

export const DKIM_SEVERITIES = ['error', 'warning', 'info'] as const;
export type DkimSeverity = (typeof DKIM_SEVERITIES)[number];

/** Every problem a key (or a domain) can have; each has its words in the console. */
export const DKIM_PROBLEMS = [
  'no_record',
  'lookup_failed',
  'syntax',
  'bad_version',
  'duplicate_tag',
  'no_key_tag',
  'unknown_key_type',
  'bad_key',
  'key_type_mismatch',
  'revoked',
  'revoked_in_use',
  'rsa_too_short',
  'rsa_weak',
  'pkcs1_key',
  'sha1_only',
  'not_for_email',
  'testing',
  'multiple_records',
  'split_wrong',
  'no_key',
  'ed25519_only',
  'failing',
] as const;
export type DkimProblemCode = (typeof DKIM_PROBLEMS)[number];

export const dkimProblemSchema = z.object({
  code: z.enum(DKIM_PROBLEMS),
  severity: z.enum(DKIM_SEVERITIES),
  /** The selector concerned; null for a problem of the whole domain. */
  selector: z.nullable(z.string()),
  /** A number the problem is about (bits, records, per cent). */
  count: z.nullable(z.number()),
  /** The problem in plain English. */
  message: z.string(),
});
export type DkimProblem = z.infer<typeof dkimProblemSchema>;

export const dkimKeySchema = z.object({
  /** The record as published (its strings joined). */
  record: z.string(),
  type: z.enum(DKIM_KEY_TYPES),
  /** RSA: the modulus length; Ed25519: 256; null when the key could not be read. */
  bits: z.nullable(z.number()),
  /** Empty p=: the key is revoked. */
  revoked: z.boolean(),
  /** t=y: receivers are asked to treat failures as if unsigned. */
  testing: z.boolean(),
  /** t=s: the signing domain must be exactly the From domain (no subdomains). */
  strict: z.boolean(),
  /** h=: the hashes the key may be used with; empty means any. */
  hashes: z.array(z.string()),
  /** n=: notes for people. */
  notes: z.string(),
});
export type DkimKey = z.infer<typeof dkimKeySchema>;

export const dkimSelectorSchema = z.object({
  selector: z.string(),
  /** The DNS name its key is published at: `<selector>._domainkey.<domain>`. */
  name: z.string(),
  seenIn: z.array(z.enum(DKIM_SEEN_IN)),
  /** Messages signed with it, as the reports and the gateway's mail count them. */
  messages: z.number(),
  /** Of those, how many passed DKIM. */
  passed: z.number(),
  /** Per cent passed; null when no message was seen. */
  passRate: z.nullable(z.number()),
  /** First and last seen in reports or mail (ISO); null when seen only in DNS. */
  firstSeen: z.nullable(z.string()),
  lastSeen: z.nullable(z.string()),
  /** When Moat first saw the key now published (ISO); null when none is. */
  keyFirstSeen: z.nullable(z.string()),
  lookup: z.enum(DKIM_LOOKUPS),
  key: z.nullable(dkimKeySchema),
  problems: z.array(dkimProblemSchema),
});
export type DkimSelector = z.infer<typeof dkimSelectorSchema>;

/** The steps of a rotation, in order. */
export const DKIM_STEPS = ['publish', 'switch', 'keep', 'revoke', 'remove'] as const;
export type DkimStepCode = (typeof DKIM_STEPS)[number];

export const dkimStepSchema = z.object({
  code: z.enum(DKIM_STEPS),
  /** The DNS name the step is about. */
  name: z.string(),
  /** The TXT record to publish there; null when the step publishes nothing. */
  value: z.nullable(z.string()),
  /** Days to wait (after the step before). */
  days: z.nullable(z.number()),
});
export type DkimStep = z.infer<typeof dkimStepSchema>;

/** Why a key is to be rotated. */
export const DKIM_ROTATE_REASONS = ['too_short', 'weak', 'old', 'unreadable'] as const;
export type DkimRotateReason = (typeof DKIM_ROTATE_REASONS)[number];

export const dkimRotationSchema = z.object({
  selector: z.string(),
  newSelector: z.string(),
  reason: z.enum(DKIM_ROTATE_REASONS),
  bits: z.nullable(z.number()),
  keyFirstSeen: z.nullable(z.string()),
  steps: z.array(dkimStepSchema),
});
export type DkimRotation = z.infer<typeof dkimRotationSchema>;

/** `publish`: no key at all; `rotate`: a key is due; `none_due`: nothing to do until `nextRotation`. */
export const DKIM_PLAN_STATUSES = ['publish', 'rotate', 'none_due', 'unknown'] as const;
export type DkimPlanStatus = (typeof DKIM_PLAN_STATUSES)[number];

export const dkimPlanSchema = z.object({
  status: z.enum(DKIM_PLAN_STATUSES),
  rotations: z.array(dkimRotationSchema),
  /** With `publish`: the first key's record to publish. */
  publish: z.nullable(dkimStepSchema),
  /** When the next rotation is due (ISO date), from the oldest key in use. */
  nextRotation: z.nullable(z.string()),
  /** The key the next rotation is counted from. */
  nextSelector: z.nullable(z.string()),
});
export type DkimPlan = z.infer<typeof dkimPlanSchema>;

export const dkimDomainSchema = z.object({
  domain: z.string(),
  selectors: z.array(dkimSelectorSchema),
  /** Problems of the domain as a whole (no key at all, only Ed25519). */
  problems: z.array(dkimProblemSchema),
  plan: dkimPlanSchema,
});
export type DkimDomain = z.infer<typeof dkimDomainSchema>;

export const dkimQuerySchema = spfQuerySchema;
export type DkimQuery = z.input<typeof dkimQuerySchema>;

export const dkimResponseSchema = z.object({
  checkedAt: z.string(),
  /** The selectors asked of DNS for every domain, beside those seen in reports and mail. */
  probed: z.array(z.string()),
  limits: z.object({
    minRsaBits: z.number(),
    goodRsaBits: z.number(),
    rotateAfterDays: z.number(),
    lookbackDays: z.number(),
  }),
  domains: z.array(dkimDomainSchema),
});
export type DkimResponse = z.infer<typeof dkimResponseSchema>;

/*
 * Failure reports (RFC 6591, ARF) and SMTP TLS reports (RFC 8460), issue 37: taken in from the
 * report addresses and uploads like aggregate reports. A failure report is kept redacted: its
 * fields with the addresses masked, and the sample's headers that matter (never its body).
 */
/** The periods the failure and TLS lists look back over, in days. */
export const FAILURE_TLS_DAYS = [7, 30, 90, 365] as const;

const failureTlsQuery = {
  domain: z.optional(
    z
      .string()
      .check(z.trim(), z.toLowerCase(), z.maxLength(253), z.regex(/^[a-z0-9._-]*$/, 'must be a domain name')),
  ),
  days: z._default(
    z.coerce
      .number()
      .check(
        z.refine((n) => (FAILURE_TLS_DAYS as readonly number[]).includes(n), 'days must be 7, 30, 90 or 365'),
      ),
    30,
  ),
  // A page of 50 at most: a report carries its policies and failures (bounded: TLS_KEPT_DETAILS).
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(50)), 20),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
};
export const failureReportsQuerySchema = z.object(failureTlsQuery);
export type FailureReportsQuery = z.input<typeof failureReportsQuerySchema>;
export const tlsReportsQuerySchema = z.object(failureTlsQuery);
export type TlsReportsQuery = z.input<typeof tlsReportsQuerySchema>;

/** A header of a failure report's sample, kept redacted (addresses' local parts masked). */
export const sampleHeaderSchema = z.object({ name: z.string(), value: z.string() });
export type SampleHeader = z.infer<typeof sampleHeaderSchema>;

export const failureReportSchema = z.object({
  id: z.string(),
  /** The tenant's domain the report is about, and the domain as reported (the same, or a subdomain). */
  domain: z.string(),
  reportedDomain: z.string(),
  reporter: z.string(),
  /** When the receiver got the failing message; null when the report does not say. */
  arrivalAt: z.nullable(z.string()),
  sourceIp: z.string(),
  /** What failed: dmarc, spf, dkim (comma-separated when several). */
  authFailure: z.string(),
  originalMailFrom: z.string(),
  originalRcptTo: z.string(),
  deliveryResult: z.string(),
  dkimDomain: z.string(),
  dkimSelector: z.string(),
  spfDns: z.string(),
  identityAlignment: z.string(),
  authenticationResults: z.string(),
  sampleHeaders: z.array(sampleHeaderSchema),
  source: z.enum(REPORT_SOURCES),
  receivedAt: z.string(),
});
export type FailureReport = z.infer<typeof failureReportSchema>;

export const failureReportsResponseSchema = z.object({
  /** The tenant's domains (what to publish, in an empty state). */
  ownDomains: z.array(z.string()),
  total: z.number(),
  items: z.array(failureReportSchema),
});
export type FailureReportsResponse = z.infer<typeof failureReportsResponseSchema>;

export const tlsFailureDetailSchema = z.object({
  resultType: z.string(),
  sendingMtaIp: z.string(),
  receivingMxHostname: z.string(),
  receivingIp: z.string(),
  failedSessions: z.number(),
  additionalInformation: z.string(),
  failureReasonCode: z.string(),
});
export type TlsFailureDetail = z.infer<typeof tlsFailureDetailSchema>;

export const tlsPolicySchema = z.object({
  /** sts (MTA-STS), tlsa (DANE) or no-policy-found. */
  type: z.string(),
  domain: z.string(),
  strings: z.array(z.string()),
  mxHosts: z.array(z.string()),
  successful: z.number(),
  failed: z.number(),
  /** The policy's failures with the most sessions (TLS_KEPT_DETAILS at most), and how many more it reported. */
  failureDetails: z.array(tlsFailureDetailSchema),
  moreFailureDetails: z.optional(z.number()),
});
export type TlsPolicy = z.infer<typeof tlsPolicySchema>;
/** Failure details kept of each policy of a TLS report: those with the most failed sessions. */
export const TLS_KEPT_DETAILS = 10;

export const tlsReportSchema = z.object({
  id: z.string(),
  domain: z.string(),
  orgName: z.string(),
  contact: z.string(),
  reportId: z.string(),
  begin: z.string(),
  end: z.string(),
  successful: z.number(),
  failed: z.number(),
  policies: z.array(tlsPolicySchema),
  source: z.enum(REPORT_SOURCES),
  receivedAt: z.string(),
});
export type TlsReportItem = z.infer<typeof tlsReportSchema>;

export const tlsReportsResponseSchema = z.object({
  /** The tenant's domains (what to publish, in an empty state). */
  ownDomains: z.array(z.string()),
  /** Per domain over the period: reports, sessions that succeeded and failed. */
  domains: z.array(
    z.object({ domain: z.string(), reports: z.number(), successful: z.number(), failed: z.number() }),
  ),
  total: z.number(),
  items: z.array(tlsReportSchema),
});
export type TlsReportsResponse = z.infer<typeof tlsReportsResponseSchema>;
