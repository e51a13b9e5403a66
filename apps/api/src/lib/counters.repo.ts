import { and, eq, gt, inArray, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../db/client.ts';
import { rowsOf } from '../db/client.ts';
import { rateCounters } from '../db/schema.ts';

/** The rows of the PostgreSQL counters (counters.ts `postgresCounters`): one per key, with its reset time. */
export function createCountersRepo(db: DbOrTx) {
  return {
    /**
     * Count `delta` hits of each key at `now` in one statement (so two nodes never both start a
     * window): a key past its reset starts again with its `reset`. The counts and reset times, in
     * the order of `keys`.
     */
    async hitMany(
      keys: Array<{ key: string; delta: number; reset: Date }>,
      now: Date,
      tx?: DbOrTx,
    ): Promise<Array<{ count: number; resetAt: Date }>> {
      if (keys.length === 0) return [];
      // One statement cannot count a key twice (ON CONFLICT touches a row once).
      if (new Set(keys.map((k) => k.key)).size !== keys.length) throw new Error('hitMany: keys repeat');
      // Three array parameters, whatever the number of keys (a flush sends hundreds).
      const rows = rowsOf<{ key: string; count: number; reset_at: Date | string }>(
        await (tx ?? db).execute(sql`
          insert into ${rateCounters} (key, count, reset_at)
          select * from unnest(
            ${sql.param(keys.map((k) => k.key))}::text[],
            ${sql.param(keys.map((k) => k.delta))}::int[],
            ${sql.param(keys.map((k) => k.reset.toISOString()))}::timestamptz[])
          on conflict (key) do update set
            count = case when ${rateCounters.resetAt} <= ${now} then excluded.count else ${rateCounters.count} + excluded.count end,
            reset_at = case when ${rateCounters.resetAt} <= ${now} then excluded.reset_at else ${rateCounters.resetAt} end
          returning key, count, reset_at`),
      );
      const byKey = new Map(
        rows.map((r) => [r.key, { count: Number(r.count), resetAt: new Date(r.reset_at) }]),
      );
      return keys.map(({ key }) => byKey.get(key)!);
    },

    /** The count of `key` if its window is still open at `now`. */
    async liveCount(key: string, now: Date, tx?: DbOrTx): Promise<number | null> {
      const [row] = await (tx ?? db)
        .select({ count: rateCounters.count })
        .from(rateCounters)
        .where(and(eq(rateCounters.key, key), gt(rateCounters.resetAt, now)));
      return row?.count ?? null;
    },

    /** Move a gauge by `delta` (never below 0; an expired one starts from 0) and keep it until `reset`. */
    async add(key: string, delta: number, now: Date, reset: Date, tx?: DbOrTx): Promise<number> {
      const [row] = rowsOf<{ count: number }>(
        await (tx ?? db).execute(sql`
          insert into ${rateCounters} (key, count, reset_at) values (${key}, greatest(${delta}, 0), ${reset})
          on conflict (key) do update set
            count = greatest(0, case when ${rateCounters.resetAt} <= ${now} then 0 else ${rateCounters.count} end + ${delta}),
            reset_at = ${reset}
          returning count`),
      );
      return Number(row!.count);
    },

    /** The sum of the live counts of the keys starting with `prefix`. */
    async liveTotal(prefix: string, now: Date, tx?: DbOrTx): Promise<number> {
      const [row] = rowsOf<{ total: number | string | null }>(
        await (tx ?? db).execute(sql`
          select sum(count) as total from ${rateCounters}
          where starts_with(key, ${prefix}) and reset_at > ${now}`),
      );
      return Number(row?.total ?? 0);
    },

    /** Keep these keys until `reset`. */
    async extend(keys: string[], reset: Date, tx?: DbOrTx): Promise<void> {
      if (keys.length === 0) return;
      await (tx ?? db).update(rateCounters).set({ resetAt: reset }).where(inArray(rateCounters.key, keys));
    },

    /** Forget the keys whose window closed before `now`. */
    async forgetExpired(now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).delete(rateCounters).where(lt(rateCounters.resetAt, now));
    },
  };
}
export type CountersRepo = ReturnType<typeof createCountersRepo>;
