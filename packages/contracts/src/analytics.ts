import { z } from 'zod/mini';
import { RANGE_ORDER_MESSAGE, rangeInOrder } from './list.ts';
import { MAIL_ACTIONS, MAIL_VERDICTS } from './mail-explorer.ts';

/** Analytics Dashboard (issue 11): the tenant's mail and detections over a time range (admins). */
export const ANALYTICS_API = {
  dashboard: '/api/v1/analytics',
} as const;

/**
 * The period the Overview counts mail over, and the Analytics dashboard's range when none is
 * chosen: the same 30 days, so the two pages show the same figures.
 */
export const MAIL_SUMMARY_DAYS = 30;
/** Without `from`, the dashboard covers this many days up to `to` (or now). */
export const ANALYTICS_DEFAULT_DAYS = MAIL_SUMMARY_DAYS;
/** The longest range the dashboard answers for (a year, leap day included). */
export const ANALYTICS_MAX_DAYS = 366;
/** Ranges up to this many hours are counted per hour, longer ones per day (buckets in UTC). */
export const ANALYTICS_HOURLY_MAX_HOURS = 48;
/** The length of each top list. */
export const ANALYTICS_TOP = 10;

/**
 * "Blocked" mail for the top senders and sender domains: the gateway judged it anything but
 * clean, or did not deliver it (held in quarantine, held silently, or failed and held unscanned).
 */
export const BLOCKED_ACTIONS = ['quarantined', 'quarantined_silent', 'failed'] as const;

export const ANALYTICS_BUCKETS = ['hour', 'day'] as const;

/** `from` inclusive, `to` exclusive (ISO 8601 with an offset); a range ending before it starts is refused. */
export const analyticsQuerySchema = z
  .object({
    from: z.optional(z.iso.datetime({ offset: true })),
    to: z.optional(z.iso.datetime({ offset: true })),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type AnalyticsQuery = z.input<typeof analyticsQuerySchema>;

const count = z.int().check(z.gte(0));
const byVerdict = z.object(
  Object.fromEntries(MAIL_VERDICTS.map((v) => [v, count])) as {
    [K in (typeof MAIL_VERDICTS)[number]]: typeof count;
  },
);
const byAction = z.object(
  Object.fromEntries(MAIL_ACTIONS.map((a) => [a, count])) as {
    [K in (typeof MAIL_ACTIONS)[number]]: typeof count;
  },
);

/**
 * What the Overview and the Analytics dashboard both count, the same way: the gateway's messages
 * (one per recipient) received in the period, by verdict; "held" is what the gateway kept from
 * the recipient on arrival (quarantined, held silently, or held after processing failed),
 * "delivered with a banner" what reached the recipient with a warning.
 */
export const mailSummarySchema = z
  .object({
    from: z.string(),
    to: z.string(),
    messages: count,
    not_clean: count,
    verdict: byVerdict,
    held: count,
    delivered_banner: count,
    attachments_removed: count,
  })
  .register(z.globalRegistry, { id: 'MailSummary' });
export type MailSummary = z.infer<typeof mailSummarySchema>;

/** The summary of mail counted by verdict and action over [from, to): one rule for both pages. */
export function summariseMail(
  rows: ReadonlyArray<{ verdict: string; action: string; n: number }>,
  from: Date,
  to: Date,
): MailSummary {
  const verdict = Object.fromEntries(MAIL_VERDICTS.map((v) => [v, 0])) as MailSummary['verdict'];
  const summary: MailSummary = {
    from: from.toISOString(),
    to: to.toISOString(),
    messages: 0,
    not_clean: 0,
    verdict,
    held: 0,
    delivered_banner: 0,
    attachments_removed: 0,
  };
  for (const row of rows) {
    summary.messages += row.n;
    if (Object.hasOwn(verdict, row.verdict)) verdict[row.verdict as keyof typeof verdict] += row.n;
    if (row.verdict !== 'clean') summary.not_clean += row.n;
    if ((BLOCKED_ACTIONS as readonly string[]).includes(row.action)) summary.held += row.n;
    if (row.action === 'delivered_banner') summary.delivered_banner += row.n;
    if (row.action === 'attachments_removed') summary.attachments_removed += row.n;
  }
  return summary;
}

/** How many messages passed one check, out of all messages in the range. */
const authRate = z.object({ pass: count, total: count });

export const analyticsDashboardSchema = z
  .object({
    /** The range counted, as the server resolved it. */
    from: z.string(),
    to: z.string(),
    bucket: z.enum(ANALYTICS_BUCKETS),
    totals: z.object({ messages: count, verdict: byVerdict, action: byAction }),
    /** The figures the Overview shows too, counted the same way. */
    summary: mailSummarySchema,
    /** One entry per bucket (its start, UTC) from the bucket holding `from` to the one holding `to`, zeros included. */
    volume: z.array(z.object({ start: z.string(), verdict: byVerdict, action: byAction })),
    /** Recipients of the most mail that was not clean. */
    top_recipients: z.array(z.object({ address: z.string(), count })),
    /** Senders and sender domains of the most blocked mail (see BLOCKED_ACTIONS). */
    top_senders: z.array(z.object({ address: z.string(), count })),
    top_sender_domains: z.array(z.object({ domain: z.string(), count })),
    /** Security events per detecting engine. */
    engines: z.array(z.object({ engine: z.string(), count })),
    auth: z.object({ spf: authRate, dkim: authRate, dmarc: authRate }),
  })
  .register(z.globalRegistry, { id: 'AnalyticsDashboard' });
export type AnalyticsDashboard = z.infer<typeof analyticsDashboardSchema>;
export type MailVerdictCounts = z.infer<typeof byVerdict>;
export type MailActionCounts = z.infer<typeof byAction>;
