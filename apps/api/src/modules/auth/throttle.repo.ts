import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { authThrottle } from '../../db/schema.ts';

/** The failure counts of the brute-force throttle (throttle.ts), one row per key. */
export function createThrottleRepo(db: DbOrTx) {
  return {
    /** The counts of these keys: failures, the last one, the end of a wait; absent keys are not listed. */
    async stateOf(keys: string[], tx?: DbOrTx): Promise<Array<typeof authThrottle.$inferSelect>> {
      if (keys.length === 0) return [];
      return (tx ?? db).select().from(authThrottle).where(inArray(authThrottle.key, keys));
    },

    /**
     * Count one failure of `key` at `now`, starting again from 1 when the last one was before
     * `forgetBefore`: the failures now counted.
     */
    async countFailure(key: string, now: Date, forgetBefore: Date, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .insert(authThrottle)
        .values({ key, failures: 1, lastFailureAt: now })
        .onConflictDoUpdate({
          target: authThrottle.key,
          set: {
            failures: sql`case when ${authThrottle.lastFailureAt} < ${forgetBefore} then 1 else ${authThrottle.failures} + 1 end`,
            lastFailureAt: now,
          },
        })
        .returning({ failures: authThrottle.failures });
      return row!.failures;
    },

    async block(key: string, until: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(authThrottle).set({ blockedUntil: until }).where(eq(authThrottle.key, key));
    },

    async clear(key: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).delete(authThrottle).where(eq(authThrottle.key, key));
    },

    /** Forget the counts whose last failure is older than `before` and that wait for nothing now (a sweep). */
    async forgetQuiet(before: Date, now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .delete(authThrottle)
        .where(
          and(
            lt(authThrottle.lastFailureAt, before),
            or(isNull(authThrottle.blockedUntil), lt(authThrottle.blockedUntil, now)),
          ),
        );
    },
  };
}
export type ThrottleRepo = ReturnType<typeof createThrottleRepo>;
