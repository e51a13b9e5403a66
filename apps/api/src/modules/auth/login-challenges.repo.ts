import { and, eq, gt, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { loginChallenges } from '../../db/schema.ts';

export type LoginChallengeRow = typeof loginChallenges.$inferSelect;
export type ChallengeStage = 'mfa_code' | 'mail_verification' | 'mfa_setup' | 'password_expired';

export function createLoginChallengesRepo(db: DbOrTx) {
  return {
    async insert(values: typeof loginChallenges.$inferInsert): Promise<LoginChallengeRow> {
      const [row] = await db.insert(loginChallenges).values(values).returning();
      return row!;
    },
    async findLive(tokenHash: string, now: Date): Promise<LoginChallengeRow | null> {
      const [row] = await db
        .select()
        .from(loginChallenges)
        .where(
          and(
            eq(loginChallenges.tokenHash, tokenHash),
            isNull(loginChallenges.consumedAt),
            gt(loginChallenges.expiresAt, now),
          ),
        );
      return row ?? null;
    },
    /** Take one attempt; null when the limit is already reached. */
    async takeAttempt(id: string, max: number): Promise<number | null> {
      const [row] = await db
        .update(loginChallenges)
        .set({ attempts: sql`${loginChallenges.attempts} + 1` })
        .where(
          and(
            eq(loginChallenges.id, id),
            isNull(loginChallenges.consumedAt),
            lt(loginChallenges.attempts, max),
          ),
        )
        .returning({ attempts: loginChallenges.attempts });
      return row?.attempts ?? null;
    },
    async setStage(id: string, stage: ChallengeStage): Promise<void> {
      await db.update(loginChallenges).set({ stage, attempts: 0 }).where(eq(loginChallenges.id, id));
    },
    async setPendingSecret(id: string, pendingSecret: string): Promise<void> {
      await db.update(loginChallenges).set({ pendingSecret }).where(eq(loginChallenges.id, id));
    },
    /** Consume once: false when it was already consumed (a replay or a race). */
    async consume(id: string, now: Date, tx?: DbOrTx): Promise<boolean> {
      const rows = await (tx ?? db)
        .update(loginChallenges)
        .set({ consumedAt: now })
        .where(and(eq(loginChallenges.id, id), isNull(loginChallenges.consumedAt)))
        .returning({ id: loginChallenges.id });
      return rows.length === 1;
    },
  };
}
export type LoginChallengesRepo = ReturnType<typeof createLoginChallengesRepo>;
