import { ANALYTICS_TOP, BLOCKED_ACTIONS } from '@moat/contracts/analytics';
import { type AnyColumn, and, count, desc, eq, gte, inArray, lt, ne, or, type SQL, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { mailLog, securityEvents } from '../../db/schema.ts';

export interface AnalyticsRange {
  tenantId: string;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
}
export type Bucket = 'hour' | 'day';

export interface VolumeRow {
  start: Date;
  verdict: string;
  action: string;
  n: number;
}

const inRange = (r: AnalyticsRange): SQL =>
  and(eq(mailLog.tenantId, r.tenantId), gte(mailLog.receivedAt, r.from), lt(mailLog.receivedAt, r.to)) as SQL;

/** Mail that was not clean, or that the gateway did not deliver (BLOCKED_ACTIONS). */
const blocked = or(ne(mailLog.verdict, 'clean'), inArray(mailLog.action, [...BLOCKED_ACTIONS])) as SQL;

const senderAddress = sql<string>`lower(${mailLog.sender})`;
const senderDomain = sql<string>`split_part(lower(${mailLog.sender}), '@', 2)`;
const recipientAddress = sql<string>`lower(${mailLog.recipient})`;
const passes = (column: AnyColumn) => sql<number>`count(*) filter (where lower(${column}) = 'pass')::int`;

/**
 * The dashboard's counts, each one GROUP BY over the tenant's rows in the range: every query
 * starts from the (tenant_id, received_at) or (tenant_id, created_at) index.
 */
export function createAnalyticsRepo(db: DbOrTx) {
  return {
    /**
     * Messages by verdict and action over the range (the Overview's and the dashboard's summary);
     * `recipient` narrows it to mail sent to that address (addresses compared without case).
     */
    async counts(r: AnalyticsRange, recipient: string | null = null, tx?: DbOrTx) {
      const rows = await (tx ?? db)
        .select({ verdict: mailLog.verdict, action: mailLog.action, n: count() })
        .from(mailLog)
        .where(
          recipient === null ? inRange(r) : and(inRange(r), eq(recipientAddress, recipient.toLowerCase())),
        )
        .groupBy(mailLog.verdict, mailLog.action);
      return rows.map((row) => ({ verdict: row.verdict, action: row.action, n: Number(row.n) }));
    },

    /** Messages per bucket (its start in UTC), verdict and action. */
    async volume(r: AnalyticsRange, bucket: Bucket, tx?: DbOrTx): Promise<VolumeRow[]> {
      // The unit is written into the SQL (one of two words), so GROUP BY repeats the select's expression exactly.
      const unit = sql.raw(bucket === 'hour' ? `'hour'` : `'day'`);
      const start = sql<Date>`date_trunc(${unit}, ${mailLog.receivedAt}, 'UTC')`;
      const rows = await (tx ?? db)
        .select({ start, verdict: mailLog.verdict, action: mailLog.action, n: count() })
        .from(mailLog)
        .where(inRange(r))
        .groupBy(start, mailLog.verdict, mailLog.action);
      // PGlite and node-postgres both hand back a timestamptz expression as text or Date.
      return rows.map((row) => ({ ...row, start: new Date(row.start), n: Number(row.n) }));
    },

    /** The recipients of the most mail that was not clean (addresses compared without case). */
    async topRecipients(r: AnalyticsRange, tx?: DbOrTx) {
      const n = count();
      return (tx ?? db)
        .select({ address: recipientAddress, count: n })
        .from(mailLog)
        .where(and(inRange(r), ne(mailLog.verdict, 'clean')))
        .groupBy(recipientAddress)
        .orderBy(desc(n), recipientAddress)
        .limit(ANALYTICS_TOP);
    },

    /** The senders of the most blocked mail (the null sender of bounces left out). */
    async topSenders(r: AnalyticsRange, tx?: DbOrTx) {
      const n = count();
      return (tx ?? db)
        .select({ address: senderAddress, count: n })
        .from(mailLog)
        .where(and(inRange(r), blocked, ne(mailLog.sender, '')))
        .groupBy(senderAddress)
        .orderBy(desc(n), senderAddress)
        .limit(ANALYTICS_TOP);
    },

    /** The sender domains of the most blocked mail. */
    async topSenderDomains(r: AnalyticsRange, tx?: DbOrTx) {
      const n = count();
      return (tx ?? db)
        .select({ domain: senderDomain, count: n })
        .from(mailLog)
        .where(and(inRange(r), blocked, sql`${senderDomain} <> ''`))
        .groupBy(senderDomain)
        .orderBy(desc(n), senderDomain)
        .limit(ANALYTICS_TOP);
    },

    /**
     * Detections per engine, most first: an event found by several engines
     * (`anti_phishing,anti_spam`) counts once for each of them.
     */
    async engines(r: AnalyticsRange, tx?: DbOrTx) {
      const result = await (tx ?? db).execute(sql`select engine, count(*)::int as count
          from (select trim(unnest(string_to_array(${securityEvents.engine}, ','))) as engine
                from ${securityEvents}
                where ${securityEvents.tenantId} = ${r.tenantId}
                  and ${securityEvents.createdAt} >= ${r.from} and ${securityEvents.createdAt} < ${r.to}) e
          where engine <> ''
          group by engine
          order by count desc, engine`);
      return rowsOf(result).map((row) => ({ engine: String(row.engine), count: Number(row.count) }));
    },

    /** How many messages passed SPF, DKIM and DMARC, out of all. */
    async auth(r: AnalyticsRange, tx?: DbOrTx) {
      const [row] = await (tx ?? db)
        .select({
          total: count(),
          spf: passes(mailLog.spf),
          dkim: passes(mailLog.dkim),
          dmarc: passes(mailLog.dmarc),
        })
        .from(mailLog)
        .where(inRange(r));
      return {
        total: Number(row?.total ?? 0),
        spf: Number(row?.spf ?? 0),
        dkim: Number(row?.dkim ?? 0),
        dmarc: Number(row?.dmarc ?? 0),
      };
    },
  };
}
export type AnalyticsRepo = ReturnType<typeof createAnalyticsRepo>;
