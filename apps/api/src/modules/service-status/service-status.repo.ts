import { and, count, desc, eq, gte, inArray, isNotNull, min, sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../../db/client.ts';
import { inboundMessages, outbox, systemTaskRuns } from '../../db/schema.ts';

export type TaskRunRow = typeof systemTaskRuns.$inferSelect;

export function createServiceStatusRepo(db: DbOrTx) {
  return {
    /** The version the database server reports (PGlite reports the PostgreSQL it embeds). */
    async databaseVersion(tx?: DbOrTx): Promise<string> {
      const [row] = rowsOf<{ v: string }>(
        await (tx ?? db).execute(sql`select current_setting('server_version') as v`),
      );
      return String(row?.v ?? 'unknown');
    },

    /** What waits and what failed: the gateway's intake (every tenant's) and this tenant's outbox. */
    async queues(tenantId: string, since: Date) {
      const waiting = inArray(outbox.status, ['queued', 'sending']);
      const [[inbound], [failedIn], [out], [failedOut]] = await Promise.all([
        db.select({ n: count() }).from(inboundMessages).where(eq(inboundMessages.status, 'received')),
        db.select({ n: count() }).from(inboundMessages).where(eq(inboundMessages.status, 'failed')),
        db
          .select({ n: count(), oldest: min(outbox.createdAt) })
          .from(outbox)
          .where(and(eq(outbox.tenantId, tenantId), waiting)),
        db
          .select({ n: count() })
          .from(outbox)
          .where(
            and(
              eq(outbox.tenantId, tenantId),
              inArray(outbox.status, ['failed', 'bounced']),
              gte(outbox.createdAt, since),
            ),
          ),
      ]);
      return {
        inboundWaiting: Number(inbound?.n ?? 0),
        inboundFailed: Number(failedIn?.n ?? 0),
        outboxWaiting: Number(out?.n ?? 0),
        oldestWaitingAt: out?.oldest ? new Date(out.oldest) : null,
        outboxFailed: Number(failedOut?.n ?? 0),
      };
    },

    /** The tenant's latest mail delivery error, and when. */
    async lastRelayError(tenantId: string): Promise<{ error: string; at: Date } | null> {
      const [row] = await db
        .select({ error: outbox.lastError, at: outbox.nextAttemptAt, createdAt: outbox.createdAt })
        .from(outbox)
        .where(and(eq(outbox.tenantId, tenantId), isNotNull(outbox.lastError)))
        .orderBy(desc(outbox.createdAt))
        .limit(1);
      return row?.error ? { error: row.error, at: row.at ?? row.createdAt } : null;
    },

    async startRun(name: string, node: string, at: Date): Promise<number> {
      const [row] = await db
        .insert(systemTaskRuns)
        .values({ name, node, startedAt: at })
        .returning({ id: systemTaskRuns.id });
      return row!.id;
    },

    async finishRun(id: number, at: Date, outcome: 'ok' | 'failed', detail: string | null): Promise<void> {
      await db
        .update(systemTaskRuns)
        .set({ finishedAt: at, outcome, detail: detail?.slice(0, 500) ?? null })
        .where(eq(systemTaskRuns.id, id));
    },

    /** Each task's latest run, and its runs and failures since `since`. */
    async runsOf(names: string[], since: Date) {
      const latest = await Promise.all(
        names.map(async (name) => {
          const [row] = await db
            .select()
            .from(systemTaskRuns)
            .where(eq(systemTaskRuns.name, name))
            .orderBy(desc(systemTaskRuns.startedAt))
            .limit(1);
          const [tally] = await db
            .select({
              runs: count(),
              failures: sql<number>`count(*) filter (where ${systemTaskRuns.outcome} = 'failed')`,
            })
            .from(systemTaskRuns)
            .where(and(eq(systemTaskRuns.name, name), gte(systemTaskRuns.startedAt, since)));
          return {
            name,
            latest: row ?? null,
            runs: Number(tally?.runs ?? 0),
            failures: Number(tally?.failures ?? 0),
          };
        }),
      );
      return latest;
    },
  };
}
export type ServiceStatusRepo = ReturnType<typeof createServiceStatusRepo>;
