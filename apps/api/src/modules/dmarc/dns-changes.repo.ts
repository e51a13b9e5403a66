import type { DmarcAlertKind, DnsPollFailure, DnsRecordKind } from '@moat/contracts/dmarc';
import { and, desc, eq, gte, inArray, isNull, lt, max, or, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import {
  alertSettings,
  dmarcAlerts,
  dmarcDaily,
  dmarcDnsChanges,
  dmarcDnsPolls,
  dmarcDnsRecords,
  dmarcRecords,
  dmarcReports,
  tenantDomains,
} from '../../db/schema.ts';

export type DnsRecordRow = typeof dmarcDnsRecords.$inferSelect;
export type DnsChangeRow = typeof dmarcDnsChanges.$inferSelect;
export type DmarcAlertRow = typeof dmarcAlerts.$inferSelect;

/** What one poll saw of one record: its value, or why the lookup failed. */
export type PollResult =
  | { kind: DnsRecordKind; name: string; ok: true; value: string | null }
  | { kind: DnsRecordKind; name: string; ok: false; failure: DnsPollFailure };

export interface ChangesFilter {
  tenantId: string;
  domain?: string;
  kind?: DnsRecordKind;
  since: Date;
  limit: number;
  offset: number;
}

/** The tenant's domains now (a domain it gave up is no longer shown). */
const ownDomain = (tenantId: string) =>
  sql`(${tenantDomains.tenantId} = ${tenantId} and ${tenantDomains.domain} = ${dmarcDnsRecords.domain})`;

/** DNS Change-Log: the records as last polled, their changes, the polls, and the DMARC alerts. */
export function createDnsChangesRepo(db: DbOrTx) {
  return {
    /** Domains of any tenant not polled since `cutoff` (never polled first), at most `limit`. */
    async dueDomains(cutoff: Date, limit: number): Promise<Array<{ tenantId: string; domain: string }>> {
      return db
        .select({ tenantId: tenantDomains.tenantId, domain: tenantDomains.domain })
        .from(tenantDomains)
        .leftJoin(
          dmarcDnsPolls,
          and(
            eq(dmarcDnsPolls.tenantId, tenantDomains.tenantId),
            eq(dmarcDnsPolls.domain, tenantDomains.domain),
          ),
        )
        .where(or(isNull(dmarcDnsPolls.polledAt), lt(dmarcDnsPolls.polledAt, cutoff)))
        .orderBy(sql`${dmarcDnsPolls.polledAt} asc nulls first`, tenantDomains.domain)
        .limit(limit);
    },

    /** The latest poll of any of the tenant's domains; null before the first. */
    async lastPolledOf(tenantId: string): Promise<Date | null> {
      const [row] = await db
        .select({ at: max(dmarcDnsPolls.polledAt) })
        .from(dmarcDnsPolls)
        .innerJoin(
          tenantDomains,
          and(
            eq(tenantDomains.tenantId, dmarcDnsPolls.tenantId),
            eq(tenantDomains.domain, dmarcDnsPolls.domain),
          ),
        )
        .where(eq(dmarcDnsPolls.tenantId, tenantId));
      return row?.at ?? null;
    },

    /** A domain's records as last seen, and up to when its reports were read for selectors. */
    async stateOf(tenantId: string, domain: string) {
      const records = await db
        .select()
        .from(dmarcDnsRecords)
        .where(and(eq(dmarcDnsRecords.tenantId, tenantId), eq(dmarcDnsRecords.domain, domain)));
      const [poll] = await db
        .select({ selectorsUntil: dmarcDnsPolls.selectorsUntil })
        .from(dmarcDnsPolls)
        .where(and(eq(dmarcDnsPolls.tenantId, tenantId), eq(dmarcDnsPolls.domain, domain)));
      return { records, selectorsUntil: poll?.selectorsUntil ?? null };
    },

    /**
     * The DKIM selectors that signed as the domain itself, and verified, in the reports received
     * after `since` (all of them when null) up to `until`: `<selector>._domainkey.<domain>` holds
     * their keys. Only a passing signature names one (anyone can send a report naming junk
     * selectors; nobody can make a receiver verify a signature without the domain's key), most
     * messages first, each a valid DNS label.
     */
    async selectorsSeen(tenantId: string, domain: string, since: Date | null, until: Date, limit: number) {
      const rows = await db.execute(
        sql`select lower(e->>'selector') as selector
              from ${dmarcReports}
              join ${dmarcRecords} on ${dmarcRecords.reportId} = ${dmarcReports.id}
              cross join lateral jsonb_array_elements(${dmarcRecords.dkimResults}) as e
             where ${dmarcReports.tenantId} = ${tenantId} and ${dmarcReports.domain} = ${domain}
               and ${dmarcReports.receivedAt} <= ${until}
               ${since ? sql`and ${dmarcReports.receivedAt} > ${since}` : sql``}
               and lower(e->>'domain') = ${domain} and lower(e->>'result') = 'pass'
               and lower(e->>'selector') ~ '^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?([.][a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$'
             group by 1 order by sum(${dmarcRecords.count}) desc, 1
             limit ${limit}`,
      );
      return rowsOf(rows).map((r) => String(r.selector));
    },

    /**
     * Write one domain's poll: each record's new reading (a first reading, a change with its
     * before and after, or a failure that keeps the value), and the poll's time. The changes
     * written are returned (first readings included, marked `first`).
     */
    async applyPoll(
      tenantId: string,
      domain: string,
      now: Date,
      results: PollResult[],
      selectorsUntil: Date,
    ): Promise<DnsChangeRow[]> {
      return db.transaction(async (tx) => {
        // The poll's row first: a second poll of the domain at once waits for this one.
        await tx
          .insert(dmarcDnsPolls)
          .values({ tenantId, domain, polledAt: now, selectorsUntil })
          .onConflictDoUpdate({
            target: [dmarcDnsPolls.tenantId, dmarcDnsPolls.domain],
            set: { polledAt: now, selectorsUntil },
          });
        const known = await tx
          .select()
          .from(dmarcDnsRecords)
          .where(and(eq(dmarcDnsRecords.tenantId, tenantId), eq(dmarcDnsRecords.domain, domain)))
          .for('update');
        const byKey = new Map(known.map((r) => [`${r.kind} ${r.name}`, r]));
        const changes: Array<typeof dmarcDnsChanges.$inferInsert> = [];
        for (const result of results) {
          const row = byKey.get(`${result.kind} ${result.name}`);
          const where = and(
            eq(dmarcDnsRecords.tenantId, tenantId),
            eq(dmarcDnsRecords.domain, domain),
            eq(dmarcDnsRecords.kind, result.kind),
            eq(dmarcDnsRecords.name, result.name),
          );
          if (!result.ok) {
            if (row)
              await tx.update(dmarcDnsRecords).set({ failure: result.failure, failedAt: now }).where(where);
            else
              await tx.insert(dmarcDnsRecords).values({
                tenantId,
                domain,
                kind: result.kind,
                name: result.name,
                failure: result.failure,
                failedAt: now,
              });
            continue;
          }
          const first = !row || row.firstSeenAt === null;
          const changed = !first && row.value !== result.value;
          if (first || changed)
            changes.push({
              tenantId,
              domain,
              kind: result.kind,
              name: result.name,
              before: first ? null : row.value,
              after: result.value,
              first,
              observedAt: now,
            });
          const values = {
            value: result.value,
            checkedAt: now,
            failure: null,
            failedAt: null,
            ...(first ? { firstSeenAt: now } : {}),
            ...(changed ? { changedAt: now } : {}),
          };
          if (row) await tx.update(dmarcDnsRecords).set(values).where(where);
          else
            await tx.insert(dmarcDnsRecords).values({
              tenantId,
              domain,
              kind: result.kind,
              name: result.name,
              ...values,
              firstSeenAt: now,
            });
        }
        return changes.length > 0 ? tx.insert(dmarcDnsChanges).values(changes).returning() : [];
      });
    },

    /** The records of the tenant's domains, by domain, kind and name. */
    async records(tenantId: string): Promise<DnsRecordRow[]> {
      const rows = await db
        .select({ record: dmarcDnsRecords })
        .from(dmarcDnsRecords)
        .innerJoin(tenantDomains, ownDomain(tenantId))
        .where(eq(dmarcDnsRecords.tenantId, tenantId))
        .orderBy(dmarcDnsRecords.domain, dmarcDnsRecords.kind, dmarcDnsRecords.name);
      return rows.map((r) => r.record);
    },

    /** The change log, newest first, with its total. */
    async changes(filter: ChangesFilter) {
      const where = and(
        eq(dmarcDnsChanges.tenantId, filter.tenantId),
        gte(dmarcDnsChanges.observedAt, filter.since),
        filter.domain ? eq(dmarcDnsChanges.domain, filter.domain) : undefined,
        filter.kind ? eq(dmarcDnsChanges.kind, filter.kind) : undefined,
      );
      const [{ total } = { total: 0 }] = await db
        .select({ total: sql<number>`count(*)::int` })
        .from(dmarcDnsChanges)
        .where(where);
      const items = await db
        .select()
        .from(dmarcDnsChanges)
        .where(where)
        .orderBy(
          desc(dmarcDnsChanges.observedAt),
          dmarcDnsChanges.domain,
          dmarcDnsChanges.kind,
          dmarcDnsChanges.name,
        )
        .limit(filter.limit)
        .offset(filter.offset);
      return { total, items };
    },

    /**
     * Sources of the tenant's domains that failed DMARC at least `minFailed` times since `from`
     * (a UTC date) and that no earlier day of that domain's reports named, in a domain that had
     * reports before them: the most failing first.
     */
    async newFailingSources(tenantId: string, from: string, minFailed: number, limit: number) {
      const rows = await db.execute(
        sql`select r.domain, r.source_ip, r.failed, r.messages from (
              select ${dmarcDaily.domain} as domain, ${dmarcDaily.sourceIp} as source_ip,
                min(${dmarcDaily.day}) as first_day,
                sum(${dmarcDaily.messages} - ${dmarcDaily.passed}) as failed,
                sum(${dmarcDaily.messages}) as messages
              from ${dmarcDaily}
              where ${dmarcDaily.tenantId} = ${tenantId} and ${dmarcDaily.day} >= ${from}
              group by ${dmarcDaily.domain}, ${dmarcDaily.sourceIp}
              having sum(${dmarcDaily.messages} - ${dmarcDaily.passed}) >= ${minFailed}
            ) r
            where not exists (
                select 1 from ${dmarcDaily} e where e.tenant_id = ${tenantId} and e.domain = r.domain
                  and e.source_ip = r.source_ip and e.day < ${from})
              and exists (
                select 1 from ${dmarcDaily} e where e.tenant_id = ${tenantId} and e.domain = r.domain
                  and e.day < r.first_day)
            order by r.failed desc, r.domain, r.source_ip
            limit ${limit}`,
      );
      return rowsOf(rows).map((r) => ({
        domain: String(r.domain),
        ip: String(r.source_ip),
        failed: Number(r.failed),
        messages: Number(r.messages),
      }));
    },

    /** Per domain: messages and passed from `recentFrom` on, and in [`priorFrom`, `recentFrom`). */
    async passRates(tenantId: string, priorFrom: string, recentFrom: string) {
      const recent = sql`${dmarcDaily.day} >= ${recentFrom}`;
      const rows = await db
        .select({
          domain: dmarcDaily.domain,
          recentMessages: sql<number>`coalesce(sum(${dmarcDaily.messages}) filter (where ${recent}), 0)::bigint`,
          recentPassed: sql<number>`coalesce(sum(${dmarcDaily.passed}) filter (where ${recent}), 0)::bigint`,
          priorMessages: sql<number>`coalesce(sum(${dmarcDaily.messages}) filter (where not ${recent}), 0)::bigint`,
          priorPassed: sql<number>`coalesce(sum(${dmarcDaily.passed}) filter (where not ${recent}), 0)::bigint`,
        })
        .from(dmarcDaily)
        .where(and(eq(dmarcDaily.tenantId, tenantId), gte(dmarcDaily.day, priorFrom)))
        .groupBy(dmarcDaily.domain);
      return rows.map((r) => ({
        domain: r.domain,
        recentMessages: Number(r.recentMessages),
        recentPassed: Number(r.recentPassed),
        priorMessages: Number(r.priorMessages),
        priorPassed: Number(r.priorPassed),
      }));
    },

    /** An alert of `kind` about `domain` raised since `since`. */
    async alertedSince(
      tenantId: string,
      kind: DmarcAlertKind,
      domain: string,
      since: Date,
    ): Promise<boolean> {
      const [row] = await db
        .select({ id: dmarcAlerts.id })
        .from(dmarcAlerts)
        .where(
          and(
            eq(dmarcAlerts.tenantId, tenantId),
            eq(dmarcAlerts.kind, kind),
            eq(dmarcAlerts.domain, domain),
            gte(dmarcAlerts.raisedAt, since),
          ),
        )
        .limit(1);
      return row !== undefined;
    },

    /** Record an alert once (its kind and key): the row, or null when it was raised before. */
    async insertAlert(
      alert: Pick<
        typeof dmarcAlerts.$inferInsert,
        'tenantId' | 'kind' | 'domain' | 'key' | 'details' | 'raisedAt'
      >,
    ): Promise<DmarcAlertRow | null> {
      const [row] = await db.insert(dmarcAlerts).values(alert).onConflictDoNothing().returning();
      return row ?? null;
    },

    async markEmailed(ids: string[]): Promise<void> {
      if (ids.length > 0)
        await db.update(dmarcAlerts).set({ emailed: true }).where(inArray(dmarcAlerts.id, ids));
    },

    async alerts(tenantId: string, since: Date, limit: number): Promise<DmarcAlertRow[]> {
      return db
        .select()
        .from(dmarcAlerts)
        .where(and(eq(dmarcAlerts.tenantId, tenantId), gte(dmarcAlerts.raisedAt, since)))
        .orderBy(desc(dmarcAlerts.raisedAt), dmarcAlerts.kind, dmarcAlerts.key)
        .limit(limit);
    },

    /** The tenant emails its admins the DMARC alerts (Settings' alerts row; on by default). */
    async emailsAlerts(tenantId: string): Promise<boolean> {
      const [row] = await db
        .select({ on: alertSettings.alertDmarc })
        .from(alertSettings)
        .where(eq(alertSettings.tenantId, tenantId));
      return row?.on ?? true;
    },

    async saveEmailsAlerts(tenantId: string, on: boolean, at: Date): Promise<void> {
      await db
        .insert(alertSettings)
        .values({ tenantId, alertDmarc: on, updatedAt: at })
        .onConflictDoUpdate({ target: alertSettings.tenantId, set: { alertDmarc: on, updatedAt: at } });
    },
  };
}
export type DnsChangesRepo = ReturnType<typeof createDnsChangesRepo>;
