import {
  type ClickOutcome,
  type ClickTimeSettings,
  DEFAULT_CLICK_TIME_SETTINGS,
} from '@moat/contracts/click-time';
import {
  and,
  asc,
  count,
  countDistinct,
  desc,
  eq,
  gte,
  inArray,
  like,
  lt,
  or,
  type SQL,
  sql,
} from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import {
  clickTimeSettings,
  linkClicks,
  mailLog,
  retractionCopies,
  retractions,
  securityEvents,
  senderLists,
  spamLearnedMessages,
  tenants,
} from '../../db/schema.ts';

export type ClickRow = typeof linkClicks.$inferInsert;

/** An exception entry click-time protection reads: a host or URL, allowed or blocked. */
export interface LinkEntry {
  list: 'allow' | 'block';
  kind: 'domain' | 'url';
  value: string;
  scope: string;
  comment: string;
  createdBy: string;
  expiresAt: Date | null;
}

/** The Exceptions pages whose host and URL entries count at click time. */
export const CLICK_TIME_SCOPES = ['all', 'click_time', 'url_reputation', 'anti_phishing'] as const;

export interface ClicksFilter {
  tenantId: string;
  inboundId?: string | undefined;
  recipient?: string | undefined;
  host?: string | undefined;
  url?: string | undefined;
  outcome?: ClickOutcome | undefined;
  scanners: boolean;
  from?: Date | undefined;
  to?: Date | undefined;
  q?: string | undefined;
  sort: 'clicked_at' | 'recipient' | 'host';
  dir: 'asc' | 'desc';
  limit: number;
  offset: number;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

export function createClickTimeRepo(db: DbOrTx) {
  return {
    async settingsOf(tenantId: string, tx?: DbOrTx): Promise<ClickTimeSettings> {
      const [row] = await (tx ?? db)
        .select({
          rewriteFlagged: clickTimeSettings.rewriteFlagged,
          rewriteClean: clickTimeSettings.rewriteClean,
          allowContinue: clickTimeSettings.allowContinue,
        })
        .from(clickTimeSettings)
        .where(eq(clickTimeSettings.tenantId, tenantId));
      return row ?? { ...DEFAULT_CLICK_TIME_SETTINGS };
    },

    async saveSettings(tenantId: string, settings: ClickTimeSettings, at: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .insert(clickTimeSettings)
        .values({ tenantId, ...settings, updatedAt: at })
        .onConflictDoUpdate({ target: clickTimeSettings.tenantId, set: { ...settings, updatedAt: at } });
    },

    /** The tenant's host and URL entries on the pages that count at click time (few per tenant). */
    async linkEntriesOf(tenantId: string, tx?: DbOrTx): Promise<LinkEntry[]> {
      const rows = await (tx ?? db)
        .select({
          list: senderLists.list,
          kind: senderLists.kind,
          value: senderLists.value,
          scope: senderLists.scope,
          comment: senderLists.comment,
          createdBy: senderLists.createdBy,
          expiresAt: senderLists.expiresAt,
        })
        .from(senderLists)
        .where(
          and(
            eq(senderLists.tenantId, tenantId),
            inArray(senderLists.kind, ['domain', 'url']),
            inArray(senderLists.scope, [...CLICK_TIME_SCOPES]),
          ),
        );
      return rows as LinkEntry[];
    },

    /**
     * What Moat thinks of the message now, for this recipient: its verdict in Mail Explorer and a
     * later judgement of an admin or a confirmed report (spam learning's label). Null: the
     * message has left Moat's records.
     */
    async messageNow(
      tenantId: string,
      inboundId: string,
      recipient: string,
      tx?: DbOrTx,
    ): Promise<{ verdict: string; learned: 'spam' | 'ham' | null } | null> {
      // A message retracted from the mailboxes later (any of its copies) has the retraction's verdict.
      const retracted = sql<string | null>`(select r.verdict from ${retractionCopies} rc
        join ${retractions} r on r.id = rc.retraction_id
        where rc.tenant_id = ${mailLog.tenantId} and rc.inbound_id = ${mailLog.inboundId}
        order by r.created_at desc limit 1)`;
      const [row] = await (tx ?? db)
        .select({ verdict: mailLog.verdict, retracted, learned: spamLearnedMessages.label })
        .from(mailLog)
        .leftJoin(
          spamLearnedMessages,
          and(
            eq(spamLearnedMessages.tenantId, mailLog.tenantId),
            eq(spamLearnedMessages.messageKey, sql`${mailLog.inboundId}::text`),
          ),
        )
        .where(
          and(
            eq(mailLog.tenantId, tenantId),
            eq(mailLog.inboundId, inboundId),
            eq(mailLog.recipient, recipient),
          ),
        )
        .limit(1);
      if (!row) return null;
      const later = row.retracted === 'spam' ? 'suspicious' : row.retracted;
      return { verdict: later ?? row.verdict, learned: row.learned };
    },

    /** A person's click that was blocked or let through past a warning, among the security events. */
    async recordEvent(values: typeof securityEvents.$inferInsert, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(securityEvents).values(values);
    },

    /**
     * Clicks in one statement of one parameter (their rows as JSON), whatever their number: a busy
     * minute's clicks cost the database one short statement, not a parameter list per row.
     */
    async insertClicks(rows: ClickRow[], tx?: DbOrTx): Promise<void> {
      if (rows.length === 0) return;
      const json = JSON.stringify(
        rows.map((r) => ({
          tenant_id: r.tenantId,
          inbound_id: r.inboundId ?? null,
          recipient: r.recipient,
          url: r.url,
          host: r.host,
          link_index: r.linkIndex ?? 0,
          verdict: r.verdict,
          outcome: r.outcome,
          reasons: r.reasons ?? [],
          scanner: r.scanner ?? false,
          user_agent: r.userAgent ?? '',
          client_ip: r.clientIp ?? null,
          created_at: (r.createdAt ?? new Date()).toISOString(),
        })),
      );
      await (tx ?? db).execute(sql`
        insert into ${linkClicks} (tenant_id, inbound_id, recipient, url, host, link_index, verdict,
          outcome, reasons, scanner, user_agent, client_ip, created_at)
        select tenant_id, inbound_id, recipient, url, host, link_index, verdict, outcome, reasons,
          scanner, user_agent, client_ip, created_at
        from jsonb_to_recordset(${json}::jsonb) as x(tenant_id uuid, inbound_id uuid, recipient text,
          url text, host text, link_index int, verdict text, outcome text, reasons jsonb,
          scanner boolean, user_agent text, client_ip text, created_at timestamptz)
        where x.tenant_id in (select id from ${tenants})`);
    },

    async clicks(filter: ClicksFilter, tx?: DbOrTx) {
      const where: SQL[] = [eq(linkClicks.tenantId, filter.tenantId)];
      if (!filter.scanners) where.push(eq(linkClicks.scanner, false));
      if (filter.inboundId) where.push(eq(linkClicks.inboundId, filter.inboundId));
      if (filter.recipient) where.push(eq(linkClicks.recipient, filter.recipient.toLowerCase()));
      if (filter.host) {
        const host = filter.host.toLowerCase().replace(/\.$/, '');
        where.push(or(eq(linkClicks.host, host), like(linkClicks.host, `%.${escapeLike(host)}`))!);
      }
      if (filter.url) where.push(like(linkClicks.url, `${escapeLike(filter.url)}%`));
      if (filter.outcome) where.push(eq(linkClicks.outcome, filter.outcome));
      if (filter.from) where.push(gte(linkClicks.createdAt, filter.from));
      if (filter.to) where.push(lt(linkClicks.createdAt, filter.to));
      if (filter.q) {
        const q = `%${escapeLike(filter.q.toLowerCase())}%`;
        where.push(sql`lower(${linkClicks.url} || ' ' || ${linkClicks.recipient}) like ${q}`);
      }
      const condition = and(...where);
      const column =
        filter.sort === 'recipient'
          ? linkClicks.recipient
          : filter.sort === 'host'
            ? linkClicks.host
            : linkClicks.createdAt;
      const order = filter.dir === 'asc' ? asc(column) : desc(column);
      const [items, [totals]] = await Promise.all([
        (tx ?? db)
          .select()
          .from(linkClicks)
          .where(condition)
          .orderBy(order, desc(linkClicks.id))
          .limit(filter.limit)
          .offset(filter.offset),
        (tx ?? db)
          .select({
            total: count(),
            recipients: countDistinct(
              sql`case when not ${linkClicks.scanner} then ${linkClicks.recipient} end`,
            ),
          })
          .from(linkClicks)
          .where(condition),
      ]);
      return { items, total: Number(totals?.total ?? 0), recipients: Number(totals?.recipients ?? 0) };
    },

    /**
     * People's clicks that went on to a host (or its subdomains) or a URL: the admins' question when
     * that host is found malicious later.
     */
    async clickedThrough(
      tenantId: string,
      match: { host?: string; url?: string },
      tx?: DbOrTx,
    ): Promise<Array<{ recipient: string; url: string; createdAt: Date }>> {
      const where: SQL[] = [
        eq(linkClicks.tenantId, tenantId),
        eq(linkClicks.scanner, false),
        inArray(linkClicks.outcome, ['redirected', 'continued']),
      ];
      if (match.host)
        where.push(
          or(eq(linkClicks.host, match.host), like(linkClicks.host, `%.${escapeLike(match.host)}`))!,
        );
      if (match.url) where.push(like(linkClicks.url, `${escapeLike(match.url)}%`));
      return (tx ?? db)
        .select({ recipient: linkClicks.recipient, url: linkClicks.url, createdAt: linkClicks.createdAt })
        .from(linkClicks)
        .where(and(...where))
        .orderBy(desc(linkClicks.createdAt))
        .limit(1_000);
    },
  };
}
export type ClickTimeRepo = ReturnType<typeof createClickTimeRepo>;
