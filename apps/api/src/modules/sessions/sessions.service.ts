import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq, isNull, ne } from 'drizzle-orm';
import type { FastifyReply } from 'fastify';
import type { DbOrTx } from '../../db/client.ts';
import { sessions } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';

/** Absolute lifetime of a session (DESIGN §4); the idle timeout is in the session plugin. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;

export function createSessionsService({
  db,
  clock,
  secureCookies,
}: {
  db: DbOrTx;
  clock: Clock;
  secureCookies: boolean;
}) {
  return {
    /** A new session with a fresh token: every sign-in (and every MFA step) gets a new one. */
    async open(
      user: { id: string; tenantId: string },
      meta: {
        ip: string | null;
        userAgent: string | null;
        mfaVerified: boolean;
        loginReasonRequired: boolean;
      },
      tx?: DbOrTx,
    ) {
      const token = newToken();
      const now = clock.now();
      const [session] = await (tx ?? db)
        .insert(sessions)
        .values({
          tokenHash: hashToken(token),
          userId: user.id,
          tenantId: user.tenantId,
          mfaVerified: meta.mfaVerified,
          loginReasonRequired: meta.loginReasonRequired,
          ip: meta.ip,
          userAgent: meta.userAgent?.slice(0, 500) ?? null,
          lastSeenAt: now,
          expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
        })
        .returning();
      return { token, session: session! };
    },

    async revoke(id: number, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).update(sessions).set({ revokedAt: clock.now() }).where(eq(sessions.id, id));
    },

    /** End every live session of a user, but `exceptId` (password reset, MFA change). */
    async revokeAllOf(userId: string, exceptId?: number, tx?: DbOrTx): Promise<void> {
      const live = and(eq(sessions.userId, userId), isNull(sessions.revokedAt));
      await (tx ?? db)
        .update(sessions)
        .set({ revokedAt: clock.now() })
        .where(exceptId === undefined ? live : and(live, ne(sessions.id, exceptId)));
    },

    async clearLoginReason(id: number): Promise<void> {
      await db.update(sessions).set({ loginReasonRequired: false }).where(eq(sessions.id, id));
    },

    setCookie(reply: FastifyReply, token: string) {
      reply.setCookie(SESSION_COOKIE, token, {
        httpOnly: true,
        secure: secureCookies,
        sameSite: 'lax',
        path: '/',
        maxAge: SESSION_ABSOLUTE_MS / 1000,
      });
    },

    clearCookie(reply: FastifyReply) {
      reply.clearCookie(SESSION_COOKIE, {
        path: '/',
        httpOnly: true,
        secure: secureCookies,
        sameSite: 'lax',
      });
    },
  };
}
export type SessionsService = ReturnType<typeof createSessionsService>;
