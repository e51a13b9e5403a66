import { eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { authThrottle } from '../../db/schema.ts';

/** The failure counts of the brute-force throttle (throttle.ts), one row per key. */
export function createThrottleRepo(db: DbOrTx) {
  return {
    /** When each of these keys is blocked until (null: counted, not blocked); absent keys are not listed. */
    async blockedUntil(keys: string[], tx?: DbOrTx): Promise<Array<Date | null>> {
      if (keys.length === 0) return [];
      const rows = await (tx ?? db)
        .select({ blockedUntil: authThrottle.blockedUntil })
        .from(authThrottle)
        .where(inArray(authThrottle.key, keys));
      return rows.map((r) => r.blockedUntil);
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
  };
}
export type ThrottleRepo = ReturnType<typeof createThrottleRepo>;
