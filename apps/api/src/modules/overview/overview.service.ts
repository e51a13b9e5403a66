import type { Overview } from '@moat/contracts/console';
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';

const WINDOW_MS = 30 * 86_400_000;

/** The Overview dashboard's counts, straight from the quarantine and events tables. */
export function createOverviewService(deps: { db: Db; clock: Clock }) {
  const { db } = deps;
  return {
    /** `recipient`: a plain user's counts cover only mail sent to them; null (an admin) the tenant's. */
    async overview(tenantId: string, recipient: string | null = null): Promise<Overview> {
      const since = new Date(deps.clock.now().getTime() - WINDOW_MS);
      const [held, pending, restored, byVerdict, recent] = await Promise.all([
        db.execute(sql`select count(*)::int as n from quarantine_messages
          where tenant_id = ${tenantId} and state in ('quarantined', 'attachments_removed')
            and (${recipient}::text is null or recipient = ${recipient})`),
        db.execute(sql`select count(*)::int as n from restore_requests r
          join quarantine_messages m on m.id = r.message_id
          where r.tenant_id = ${tenantId} and r.status = 'requested'
            and (${recipient}::text is null or m.recipient = ${recipient})`),
        db.execute(sql`select count(*)::int as n from releases r
          join quarantine_messages m on m.id = r.message_id
          where m.tenant_id = ${tenantId} and r.created_at >= ${since}
            and (${recipient}::text is null or m.recipient = ${recipient})`),
        db.execute(sql`select e.verdict, count(*)::int as n from security_events e
          left join quarantine_messages m on m.id = e.message_id
          where e.tenant_id = ${tenantId} and e.created_at >= ${since}
            and (${recipient}::text is null or m.recipient = ${recipient})
          group by e.verdict`),
        db.execute(sql`select e.id, e.verdict, e.created_at, coalesce(m.subject, e.description) as subject,
            coalesce(m.recipient, '') as recipient
          from security_events e left join quarantine_messages m on m.id = e.message_id
          where e.tenant_id = ${tenantId}
            and (${recipient}::text is null or m.recipient = ${recipient})
          order by e.created_at desc limit 5`),
      ]);
      const count = (result: unknown) => Number(rowsOf(result)[0]?.n ?? 0);
      const verdicts = { phishing: 0, malware: 0, spam: 0, suspicious: 0 };
      for (const row of rowsOf(byVerdict)) {
        if (Object.hasOwn(verdicts, String(row.verdict))) {
          verdicts[row.verdict as keyof typeof verdicts] = Number(row.n);
        }
      }
      return {
        quarantined: count(held),
        pending_requests: count(pending),
        restored_30d: count(restored),
        events_30d: { total: Object.values(verdicts).reduce((a, b) => a + b, 0), ...verdicts },
        recent_events: rowsOf(recent).map((r) => ({
          id: String(r.id),
          verdict: String(r.verdict),
          subject: String(r.subject),
          recipient: String(r.recipient),
          detected_at: new Date(r.created_at as string).toISOString(),
        })),
      };
    },
  };
}
