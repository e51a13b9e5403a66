import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { userTokens } from '../../db/schema.ts';

export type UserTokenKind =
  | 'password_reset'
  | 'login_link'
  | 'login_checkpoint'
  | 'login_firewall'
  | 'sso_handoff';

export function createUserTokensRepo(db: DbOrTx) {
  return {
    async insert(values: typeof userTokens.$inferInsert): Promise<void> {
      await db.insert(userTokens).values(values);
    },
    /**
     * Use a token once: the user id, or null when it is unknown, expired, already used or (with
     * `boundTo`) bound to something else.
     */
    async use(
      tokenHash: string,
      kind: UserTokenKind,
      now: Date,
      tx?: DbOrTx,
      boundTo?: string,
    ): Promise<string | null> {
      const [row] = await (tx ?? db)
        .update(userTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(userTokens.tokenHash, tokenHash),
            eq(userTokens.kind, kind),
            isNull(userTokens.usedAt),
            gt(userTokens.expiresAt, now),
            boundTo === undefined ? undefined : eq(userTokens.boundTo, boundTo),
          ),
        )
        .returning({ userId: userTokens.userId });
      return row?.userId ?? null;
    },
    /**
     * Record a token issued elsewhere (a parent portal's signed token) as used, once: false when
     * it was recorded before, i.e. the token is being replayed.
     */
    async claim(values: typeof userTokens.$inferInsert & { usedAt: Date }): Promise<boolean> {
      const rows = await db
        .insert(userTokens)
        .values(values)
        .onConflictDoNothing({ target: userTokens.tokenHash })
        .returning({ tokenHash: userTokens.tokenHash });
      return rows.length === 1;
    },
    /** Void every unused token of a user (a password change ends every way in). */
    async voidAllOf(userId: string, now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .update(userTokens)
        .set({ usedAt: now })
        .where(and(eq(userTokens.userId, userId), isNull(userTokens.usedAt)));
    },
    async latestCreatedAt(userId: string, kind: UserTokenKind): Promise<Date | null> {
      const [row] = await db
        .select({ createdAt: userTokens.createdAt })
        .from(userTokens)
        .where(and(eq(userTokens.userId, userId), eq(userTokens.kind, kind)))
        .orderBy(desc(userTokens.createdAt))
        .limit(1);
      return row?.createdAt ?? null;
    },
  };
}
export type UserTokensRepo = ReturnType<typeof createUserTokensRepo>;
