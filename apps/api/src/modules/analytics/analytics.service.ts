import {
  ANALYTICS_DEFAULT_DAYS,
  ANALYTICS_HOURLY_MAX_HOURS,
  ANALYTICS_MAX_DAYS,
  type AnalyticsDashboard,
  type analyticsQuerySchema,
  type MailActionCounts,
  type MailVerdictCounts,
  summariseMail,
} from '@moat/contracts/analytics';
import { MAIL_ACTIONS, MAIL_VERDICTS } from '@moat/contracts/mail-explorer';
import type { z } from 'zod';
import { badRequest } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { AnalyticsRepo, Bucket } from './analytics.repo.ts';

type Query = z.output<typeof analyticsQuerySchema>;

const HOUR = 3600_000;
const DAY = 24 * HOUR;

const zeroVerdicts = (): MailVerdictCounts =>
  Object.fromEntries(MAIL_VERDICTS.map((v) => [v, 0])) as MailVerdictCounts;
const zeroActions = (): MailActionCounts =>
  Object.fromEntries(MAIL_ACTIONS.map((a) => [a, 0])) as MailActionCounts;
const isVerdict = (v: string): v is keyof MailVerdictCounts =>
  (MAIL_VERDICTS as readonly string[]).includes(v);
const isAction = (a: string): a is keyof MailActionCounts => (MAIL_ACTIONS as readonly string[]).includes(a);

/** The start (UTC) of the hour or day holding `at`. */
function truncate(at: Date, bucket: Bucket): number {
  const unit = bucket === 'hour' ? HOUR : DAY;
  return Math.floor(at.getTime() / unit) * unit;
}

/** The buckets' starts from the one holding `from` to the one holding the last instant before `to`. */
function bucketStarts(from: Date, to: Date, bucket: Bucket): number[] {
  const step = bucket === 'hour' ? HOUR : DAY;
  const last = truncate(new Date(Math.max(from.getTime(), to.getTime() - 1)), bucket);
  const starts: number[] = [];
  for (let at = truncate(from, bucket); at <= last; at += step) starts.push(at);
  return starts;
}

/** Analytics Dashboard: the tenant's mail volume, top targets and senders, detections and authentication. */
export function createAnalyticsService(deps: { repo: AnalyticsRepo; clock: Clock }) {
  return {
    async dashboard(tenantId: string, query: Query): Promise<AnalyticsDashboard> {
      const to = query.to ? new Date(query.to) : deps.clock.now();
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - ANALYTICS_DEFAULT_DAYS * DAY);
      if (from > to)
        throw badRequest('from must not be after to', [
          { field: 'querystring.to', message: 'from must not be after to' },
        ]);
      if (to.getTime() - from.getTime() > ANALYTICS_MAX_DAYS * DAY) {
        const message = `The range must not be longer than ${ANALYTICS_MAX_DAYS} days`;
        throw badRequest(message, [{ field: 'querystring.from', message }]);
      }
      const bucket: Bucket =
        to.getTime() - from.getTime() <= ANALYTICS_HOURLY_MAX_HOURS * HOUR ? 'hour' : 'day';
      const range = { tenantId, from, to };

      const [counts, volume, recipients, senders, domains, engines, auth] = await Promise.all([
        deps.repo.counts(range),
        deps.repo.volume(range, bucket),
        deps.repo.topRecipients(range),
        deps.repo.topSenders(range),
        deps.repo.topSenderDomains(range),
        deps.repo.engines(range),
        deps.repo.auth(range),
      ]);

      const buckets = new Map(
        bucketStarts(from, to, bucket).map((start) => [
          start,
          { verdict: zeroVerdicts(), action: zeroActions() },
        ]),
      );
      const totals = { messages: 0, verdict: zeroVerdicts(), action: zeroActions() };
      for (const row of volume) {
        const counted = buckets.get(row.start.getTime());
        totals.messages += row.n;
        if (isVerdict(row.verdict)) {
          totals.verdict[row.verdict] += row.n;
          if (counted) counted.verdict[row.verdict] += row.n;
        }
        if (isAction(row.action)) {
          totals.action[row.action] += row.n;
          if (counted) counted.action[row.action] += row.n;
        }
      }
      const rate = (pass: number) => ({ pass, total: auth.total });
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        bucket,
        totals,
        summary: summariseMail(counts, from, to),
        volume: [...buckets].map(([start, counts]) => ({ start: new Date(start).toISOString(), ...counts })),
        top_recipients: recipients.map((r) => ({ address: r.address, count: Number(r.count) })),
        top_senders: senders.map((s) => ({ address: s.address, count: Number(s.count) })),
        top_sender_domains: domains.map((d) => ({ domain: d.domain, count: Number(d.count) })),
        engines: engines.map((e) => ({ engine: e.engine, count: Number(e.count) })),
        auth: { spf: rate(auth.spf), dkim: rate(auth.dkim), dmarc: rate(auth.dmarc) },
      };
    },
  };
}
export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
