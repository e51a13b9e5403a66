import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';

/**
 * The Overview dashboard's counts, straight from the quarantine and events tables. `recipient`
 * narrows each to mail sent to that address; null counts the whole tenant.
 */
export function createOverviewRepo(db: DbOrTx) {
  const count = (result: unknown) => Number(rowsOf(result)[0]?.n ?? 0);
  return {
    async heldCount(tenantId: string, recipient: string | null, tx?: DbOrTx): Promise<number> {
      return count(
        await (tx ?? db).execute(sql`select count(*)::int as n from quarantine_messages
          where tenant_id = ${tenantId} and state in ('quarantined', 'attachments_removed')
            and (${recipient}::text is null or recipient = ${recipient})`),
      );
    },
    async pendingRequestCount(tenantId: string, recipient: string | null, tx?: DbOrTx): Promise<number> {
      return count(
        await (tx ?? db).execute(sql`select count(*)::int as n from restore_requests r
          join quarantine_messages m on m.id = r.message_id
          where r.tenant_id = ${tenantId} and r.status = 'requested'
            and (${recipient}::text is null or m.recipient = ${recipient})`),
      );
    },
    async releaseCountSince(
      tenantId: string,
      recipient: string | null,
      since: Date,
      tx?: DbOrTx,
    ): Promise<number> {
      return count(
        await (tx ?? db).execute(sql`select count(*)::int as n from releases r
          join quarantine_messages m on m.id = r.message_id
          where m.tenant_id = ${tenantId} and r.created_at >= ${since}
            and (${recipient}::text is null or m.recipient = ${recipient})`),
      );
    },
    /** The newest events, with their message's subject (or the event's description) and recipient. */
    async recentEvents(tenantId: string, recipient: string | null, limit: number, tx?: DbOrTx) {
      const result = await (tx ?? db).execute(sql`select e.id, e.verdict, e.created_at,
            coalesce(nullif(e.subject, ''), e.description) as subject, e.recipient
          from security_events e
          where e.tenant_id = ${tenantId}
            and (${recipient}::text is null or lower(e.recipient) = lower(${recipient}))
          order by e.created_at desc limit ${limit}`);
      return rowsOf(result).map((r) => ({
        id: String(r.id),
        verdict: String(r.verdict),
        subject: String(r.subject),
        recipient: String(r.recipient),
        createdAt: new Date(r.created_at as string),
      }));
    },
  };
}
export type OverviewRepo = ReturnType<typeof createOverviewRepo>;
