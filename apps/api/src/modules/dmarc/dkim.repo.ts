import { eq, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { dmarcDkimKeys, dmarcRecords, mailLog } from '../../db/schema.ts';

/** A selector as the reports or the gateway's mail saw it sign for a domain. */
export interface SeenSelector {
  domain: string;
  selector: string;
  messages: number;
  passed: number;
  firstSeen: Date;
  lastSeen: Date;
}

export type KeySeenRow = typeof dmarcDkimKeys.$inferSelect;

/** A key just looked up, to remember. */
export interface KeySeen {
  domain: string;
  selector: string;
  keyHash: string;
  keyType: string;
  bits: number | null;
  /** When it was first seen: now, or earlier when the reports or mail show its selector signing before. */
  firstSeen: Date;
}

/** Selectors kept per domain and place (the most-used first): a report naming thousands costs nothing. */
export const SELECTORS_MAX = 20;

const asDate = (value: unknown) => (value instanceof Date ? value : new Date(String(value)));

function seenOf(rows: Array<Record<string, unknown>>): SeenSelector[] {
  return rows.map((r) => ({
    domain: String(r.domain),
    selector: String(r.selector),
    messages: Number(r.messages),
    passed: Number(r.passed),
    firstSeen: asDate(r.first_seen),
    lastSeen: asDate(r.last_seen),
  }));
}

export function createDkimRepo(db: DbOrTx) {
  return {
    /**
     * The selectors the aggregate reports name as signing for one of `domains` (d= the domain),
     * since `since`: messages, how many passed, first and last report period.
     */
    async reportSelectors(tenantId: string, domains: string[], since: Date): Promise<SeenSelector[]> {
      if (domains.length === 0) return [];
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`
          with seen as (
            select lower(e->>'domain') as domain, e->>'selector' as selector,
              sum(${dmarcRecords.count})::bigint as messages,
              coalesce(sum(${dmarcRecords.count}) filter (where lower(e->>'result') = 'pass'), 0)::bigint as passed,
              min(${dmarcRecords.beginAt}) as first_seen, max(${dmarcRecords.beginAt}) as last_seen
            from ${dmarcRecords}, jsonb_array_elements(${dmarcRecords.dkimResults}) as e
            where ${dmarcRecords.tenantId} = ${tenantId} and ${dmarcRecords.beginAt} >= ${since}
              and jsonb_typeof(${dmarcRecords.dkimResults}) = 'array'
              and lower(e->>'domain') in (select jsonb_array_elements_text(${JSON.stringify(domains)}::jsonb))
              and coalesce(e->>'selector', '') <> ''
            group by 1, 2),
          ranked as (
            select *, row_number() over (partition by domain order by messages desc, selector) as n from seen)
          select domain, selector, messages, passed, first_seen, last_seen from ranked
          where n <= ${SELECTORS_MAX} order by domain, messages desc, selector`),
      );
      return seenOf(rows);
    },

    /**
     * The selectors of the DKIM signatures the gateway verified on mail it received (each
     * message's chosen signature, from its Authentication-Results: header.i=@domain header.s=),
     * for one of `domains`, since `since`.
     */
    async mailSelectors(tenantId: string, domains: string[], since: Date): Promise<SeenSelector[]> {
      if (domains.length === 0) return [];
      const reason = sql`(${mailLog.details}->'auth'->'dkim'->>'reason')`;
      const rows = rowsOf<Record<string, unknown>>(
        await db.execute(sql`
          with signed as (
            select ${mailLog.inboundId} as inbound_id, ${mailLog.dkim} as result,
              ${mailLog.receivedAt} as received_at,
              lower(substring(${reason} from 'header\\.i=[^@\\s;]*@([A-Za-z0-9._-]+)')) as domain,
              substring(${reason} from 'header\\.s=([A-Za-z0-9._-]+)') as selector
            from ${mailLog}
            where ${mailLog.tenantId} = ${tenantId} and ${mailLog.receivedAt} >= ${since}
              and ${reason} like '%header.s=%'),
          seen as (
            select domain, selector, count(distinct inbound_id)::bigint as messages,
              count(distinct inbound_id) filter (where result = 'pass')::bigint as passed,
              min(received_at) as first_seen, max(received_at) as last_seen
            from signed
            where selector is not null
              and domain in (select jsonb_array_elements_text(${JSON.stringify(domains)}::jsonb))
            group by 1, 2),
          ranked as (
            select *, row_number() over (partition by domain order by messages desc, selector) as n from seen)
          select domain, selector, messages, passed, first_seen, last_seen from ranked
          where n <= ${SELECTORS_MAX} order by domain, messages desc, selector`),
      );
      return seenOf(rows);
    },

    /** Every key remembered for the tenant's domains. */
    async keysSeen(tenantId: string): Promise<KeySeenRow[]> {
      return db.select().from(dmarcDkimKeys).where(eq(dmarcDkimKeys.tenantId, tenantId));
    },

    /** The keys just looked up: new ones remembered, known ones last seen now (and first seen no later). */
    async rememberKeys(tenantId: string, keys: KeySeen[], now: Date): Promise<void> {
      if (keys.length === 0) return;
      await db
        .insert(dmarcDkimKeys)
        .values(
          keys.map(({ firstSeen, ...k }) => ({ ...k, tenantId, firstSeenAt: firstSeen, lastSeenAt: now })),
        )
        .onConflictDoUpdate({
          target: [
            dmarcDkimKeys.tenantId,
            dmarcDkimKeys.domain,
            dmarcDkimKeys.selector,
            dmarcDkimKeys.keyHash,
          ],
          set: {
            firstSeenAt: sql`least(${dmarcDkimKeys.firstSeenAt}, excluded.first_seen_at)`,
            lastSeenAt: now,
            keyType: sql`excluded.key_type`,
            bits: sql`excluded.bits`,
          },
        });
    },
  };
}
export type DkimRepo = ReturnType<typeof createDkimRepo>;
