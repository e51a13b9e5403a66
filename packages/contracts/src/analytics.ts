import { z } from 'zod/mini';
import { RANGE_ORDER_MESSAGE, rangeInOrder } from './list.ts';
import { MAIL_ACTIONS, MAIL_VERDICTS } from './mail-explorer.ts';

/** Analytics Dashboard (issue 11): the tenant's mail and detections over a time range (admins). */
export const ANALYTICS_API = {
  dashboard: '/api/v1/analytics',
} as const;

/** Without `from`, the dashboard covers this many days up to `to` (or now). */
export const ANALYTICS_DEFAULT_DAYS = 7;
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

/** How many messages passed one check, out of all messages in the range. */
const authRate = z.object({ pass: count, total: count });

export const analyticsDashboardSchema = z
  .object({
    /** The range counted, as the server resolved it. */
    from: z.string(),
    to: z.string(),
    bucket: z.enum(ANALYTICS_BUCKETS),
    totals: z.object({ messages: count, verdict: byVerdict, action: byAction }),
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
