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
