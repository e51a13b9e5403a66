import { SHARED_MAIL_DOMAINS } from '@moat/contracts/my-senders';
import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { mailLog } from '../../db/schema.ts';

/** How far back the mail flow is read for partners. */
export const PARTNER_WINDOW_DAYS = 90;
/** Clean messages from a domain, in that window, that make it a regular partner. */
export const PARTNER_MIN_MESSAGES = 5;
/** Partners handed to the engines, the busiest first. */
export const PARTNERS_MAX = 200;
/** Earlier messages counted per sender: enough to tell a first-time sender from a known one. */
export const SENDER_HISTORY_CAP = 50;

/**
 * The domain of a Mail Explorer row's sender: what follows its last '@', lower-case. The same
 * expression as the index of migration 0031, so the sender-history counts read the index.
 */
const senderDomain = sql`lower(regexp_replace(${mailLog.sender}, '^.*@', ''))`;

/** What a tenant's own mail flow (the Mail Explorer rows) says of the senders of new mail. */
export function createMailFlowRepo(db: DbOrTx) {
  return {
    /**
     * The domains the tenant regularly receives clean, delivered mail from (PARTNER_MIN_MESSAGES
     * in PARTNER_WINDOW_DAYS), busiest first, at most PARTNERS_MAX. Its own domains and the
     * shared mail providers (gmail.com…) are no organisation's: left out. One statement over the
     * tenant's rows of the window (its received-at index); the gateway caches the answer.
     */
    async partnersOf(
      tenantId: string,
      ownDomains: readonly string[],
      now: Date,
      tx?: DbOrTx,
    ): Promise<string[]> {
      const since = new Date(now.getTime() - PARTNER_WINDOW_DAYS * 86_400_000);
      const excluded = [...ownDomains.map((d) => d.toLowerCase()), ...SHARED_MAIL_DOMAINS, ''];
      const result = await (tx ?? db).execute(sql`select ${senderDomain} as domain
        from ${mailLog}
        where ${mailLog.tenantId} = ${tenantId} and ${mailLog.receivedAt} >= ${since}
          and ${mailLog.verdict} = 'clean' and ${mailLog.action} = 'delivered'
          and ${senderDomain} not in (${sql.join(
            excluded.map((d) => sql`${d}`),
            sql`, `,
          )})
        group by 1
        having count(*) >= ${PARTNER_MIN_MESSAGES}
        order by count(*) desc, 1
        limit ${PARTNERS_MAX}`);
      return rowsOf<{ domain: string }>(result).map((r) => r.domain);
    },

    /**
     * How many earlier Mail Explorer rows of the tenant came from this address and from its
     * domain, each counted up to SENDER_HISTORY_CAP (a known sender needs no exact figure, and the
     * cap keeps the statement a short index scan however busy the sender). One statement.
     */
    async senderHistory(
      tenantId: string,
      address: string,
      tx?: DbOrTx,
    ): Promise<{ address: number; domain: number }> {
      const sender = address.toLowerCase();
      const domain = sender.slice(sender.lastIndexOf('@') + 1);
      const result = await (tx ?? db).execute(sql`select
          (select count(*)::int from (select 1 from ${mailLog}
            where ${mailLog.tenantId} = ${tenantId} and ${senderDomain} = ${domain}
              and ${mailLog.sender} = ${sender}
            limit ${SENDER_HISTORY_CAP}) a) as address,
          (select count(*)::int from (select 1 from ${mailLog}
            where ${mailLog.tenantId} = ${tenantId} and ${senderDomain} = ${domain}
            limit ${SENDER_HISTORY_CAP}) d) as domain`);
      const [row] = rowsOf<{ address: number; domain: number }>(result);
      return { address: Number(row?.address ?? 0), domain: Number(row?.domain ?? 0) };
    },
  };
}
export type MailFlowRepo = ReturnType<typeof createMailFlowRepo>;
