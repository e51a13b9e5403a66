import { and, desc, eq, gt, isNull, ne, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { sessions, tenants, users } from '../../db/schema.ts';

export type SessionRow = typeof sessions.$inferSelect;
export type NewSession = typeof sessions.$inferInsert;

export function createSessionsRepo(db: DbOrTx) {
  return {
    /** A live session (not revoked, not past its absolute expiry) with its user, by token hash. */
    async findLive(tokenHash: string, now: Date, tx?: DbOrTx) {
      const [row] = await (tx ?? db)
        .select({
          session: sessions,
          user: users,
          tenantLocked: sql<boolean>`coalesce(${tenants.portalLicenseState} = 'locked', false)`,
          idleMinutes: tenants.sessionIdleMinutes,
          absoluteHours: tenants.sessionAbsoluteHours,
          onboardingPending: sql<boolean>`${tenants.onboardedAt} is null`,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .innerJoin(tenants, eq(tenants.id, users.tenantId))
        .where(
          and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)),
        );
      return row ?? null;
    },
    async touch(id: number, now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(sessions).set({ lastSeenAt: now }).where(eq(sessions.id, id));
    },
    async revoke(id: number, now: Date, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(sessions).set({ revokedAt: now }).where(eq(sessions.id, id));
    },
    async insert(values: NewSession, tx?: DbOrTx): Promise<SessionRow> {
      const [row] = await (tx ?? db).insert(sessions).values(values).returning();
      return row!;
    },
    /** End every live session of a user, but `exceptId`; answers how many ended. */
    async revokeAllOf(userId: string, now: Date, exceptId?: number, tx?: DbOrTx): Promise<number> {
      const live = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
      const rows = await (tx ?? db)
        .update(sessions)
        .set({ revokedAt: now })
        .where(exceptId === undefined ? live : and(live, ne(sessions.id, exceptId)))
        .returning({ id: sessions.id });
      return rows.length;
    },
    /** A user's live sessions (not revoked, not past their absolute expiry), most recently used first. */
    async liveOf(userId: string, now: Date, tx?: DbOrTx): Promise<SessionRow[]> {
      return (tx ?? db)
        .select()
        .from(sessions)
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
        .orderBy(desc(sessions.lastSeenAt));
    },
    /** End one live session of this user; answers whether there was one. */
    async revokeOwn(userId: string, id: number, now: Date, tx?: DbOrTx): Promise<boolean> {
      const rows = await (tx ?? db)
        .update(sessions)
        .set({ revokedAt: now })
        .where(and(eq(sessions.id, id), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },
    async clearLoginReason(id: number, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(sessions).set({ loginReasonRequired: false }).where(eq(sessions.id, id));
    },
  };
}
export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
