import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { dmarcRecords } from '../../db/schema.ts';

/** A source whose mail failed DMARC although a receiver authenticated it: SPF or DKIM passed, unaligned. */
export interface UnalignedSource {
  domain: string;
  sourceIp: string;
  messages: number;
  /** The domains SPF passed for (the envelope's) and DKIM signatures that verified, none of them aligned. */
  spfDomains: string[];
  dkimDomains: string[];
  /** UTC days the source was seen failing so, for the weekly check of a policy's readiness. */
  days: { day: string; messages: number }[];
}

/** Sources at most per domain; the recommendations name the largest ones. */
const SOURCES_PER_DOMAIN = 20;

/** What the Recommendations read of the reports: only rows that failed DMARC, over the period. */
export function createRecommendationsRepo(db: DbOrTx) {
  return {
    async unalignedSources(tenantId: string, from: Date): Promise<UnalignedSource[]> {
      const rows = rowsOf(
        await db.execute(sql`
          with failing as (
            select ${dmarcRecords.domain} as domain, ${dmarcRecords.sourceIp} as source_ip,
              ${dmarcRecords.count} as messages, (${dmarcRecords.beginAt} at time zone 'UTC')::date as day,
              ${dmarcRecords.spfResults} as spf_results, ${dmarcRecords.dkimResults} as dkim_results
            from ${dmarcRecords}
            where ${dmarcRecords.tenantId} = ${tenantId} and ${dmarcRecords.beginAt} >= ${from}
              and ${dmarcRecords.spf} = 'fail' and ${dmarcRecords.dkim} = 'fail'
              and (jsonb_path_exists(${dmarcRecords.spfResults}, '$[*] ? (@.result == "pass")')
                or jsonb_path_exists(${dmarcRecords.dkimResults}, '$[*] ? (@.result == "pass")'))
          ),
          per_source as (
            select domain, source_ip, sum(messages)::bigint as messages,
              row_number() over (partition by domain order by sum(messages) desc, source_ip) as place
            from failing group by domain, source_ip
          )
          select p.domain, p.source_ip, p.messages,
            (select coalesce(jsonb_agg(distinct lower(e->>'domain')), '[]'::jsonb) from failing f,
               jsonb_array_elements(f.spf_results) e
             where f.domain = p.domain and f.source_ip = p.source_ip and e->>'result' = 'pass') as spf_domains,
            (select coalesce(jsonb_agg(distinct lower(e->>'domain')), '[]'::jsonb) from failing f,
               jsonb_array_elements(f.dkim_results) e
             where f.domain = p.domain and f.source_ip = p.source_ip and e->>'result' = 'pass') as dkim_domains,
            (select jsonb_agg(jsonb_build_object('day', d.day::text, 'messages', d.messages) order by d.day)
             from (select day, sum(messages)::bigint as messages from failing f
                   where f.domain = p.domain and f.source_ip = p.source_ip group by day) d) as days
          from per_source p where p.place <= ${SOURCES_PER_DOMAIN}
          order by p.domain, p.place`),
      );
      const list = (v: unknown): string[] =>
        (typeof v === 'string' ? JSON.parse(v) : (v ?? [])).filter(
          (d: unknown) => typeof d === 'string' && d,
        );
      return rows.map((r) => ({
        domain: String(r.domain),
        sourceIp: String(r.source_ip),
        messages: Number(r.messages),
        spfDomains: list(r.spf_domains),
        dkimDomains: list(r.dkim_domains),
        days: (typeof r.days === 'string' ? JSON.parse(r.days) : (r.days ?? [])).map(
          (d: { day: string; messages: number | string }) => ({ day: d.day, messages: Number(d.messages) }),
        ),
      }));
    },
  };
}
export type RecommendationsRepo = ReturnType<typeof createRecommendationsRepo>;
