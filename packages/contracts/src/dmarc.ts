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
  /** GET the same rows as CSV, under the same filters. */
  recordsCsv: '/api/v1/dmarc/records.csv',
  /** GET what came to the report addresses and the uploads: taken in, or refused and why. */
  intake: '/api/v1/dmarc/intake',
  /** GET per domain: the report address, messages reported, pass rate, policy, trend, failing sources. */
  overview: '/api/v1/dmarc/overview',
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
