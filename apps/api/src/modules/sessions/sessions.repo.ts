import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { sessions, tenants, users } from '../../db/schema.ts';

export type SessionRow = typeof sessions.$inferSelect;

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
  };
}
export type SessionsRepo = ReturnType<typeof createSessionsRepo>;
