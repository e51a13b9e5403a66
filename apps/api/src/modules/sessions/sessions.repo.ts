import { and, eq, gt, isNull, ne, sql } from 'drizzle-orm';
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
    /** End every live session of a user, but `exceptId`. */
    async revokeAllOf(userId: string, now: Date, exceptId?: number, tx?: DbOrTx): Promise<void> {
      const live = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
      await (tx ?? db)
        .update(sessions)
        .set({ revokedAt: now })
        .where(exceptId === undefined ? live : and(live, ne(sessions.id, exceptId)));
    },
    async clearLoginReason(id: number, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(sessions).set({ loginReasonRequired: false }).where(eq(sessions.id, id));
    },
  };
}
export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
