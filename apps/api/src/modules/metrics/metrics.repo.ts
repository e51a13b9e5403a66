import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rowsOf } from '../../db/client.ts';
import type { QueueDepths } from '../../lib/metrics.ts';

/** The SQL behind `moat_queue_depth`, read at each scrape. */
export function createMetricsRepo(db: Pick<Db, 'transaction'>) {
  return {
    /**
     * Inbound mail stored and not yet processed, outbound mail not yet sent (queued, being sent,
     * or waiting for a retry), and inbound mail parked `failed`: three counts on the status
     * indexes (inbound_messages_pending_idx, outbox_due_idx), bounded by a statement timeout.
     */
    async queueDepths(timeoutMs: number): Promise<QueueDepths> {
      return db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local statement_timeout = ${Math.max(1, Math.trunc(timeoutMs))}`));
        const [row] = rowsOf<{ inbound: number; outbox: number; failed: number }>(
          await tx.execute(sql`select
              (select count(*)::int from inbound_messages where status = 'received') as inbound,
              (select count(*)::int from outbox where status in ('queued', 'sending', 'failed')) as outbox,
              (select count(*)::int from inbound_messages where status = 'failed') as failed`),
        );
        return { inbound: row?.inbound ?? 0, outbox: row?.outbox ?? 0, failed: row?.failed ?? 0 };
      });
    },
  };
}
export type MetricsRepo = ReturnType<typeof createMetricsRepo>;
