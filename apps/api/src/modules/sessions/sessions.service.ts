import { SESSION_COOKIE } from '@moat/contracts/current-user';
import type { FastifyReply } from 'fastify';
import type { DbOrTx } from '../../db/client.ts';
import type { Cache } from '../../lib/cache.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { SessionsRepo } from './sessions.repo.ts';

export type LiveSession = NonNullable<Awaited<ReturnType<SessionsRepo['findLive']>>>;

/** Absolute lifetime of a session (DESIGN §4); the idle timeout is in the session plugin. */
/** The longest any session lives (cookie and row); each tenant's own limit (Settings, 1–24 h) is checked on every request. */
export const SESSION_ABSOLUTE_MS = 24 * 3_600_000;

export function createSessionsService({
  clock,
  secureCookies,
  repo,
  live,
}: {
  clock: Clock;
  secureCookies: boolean;
  repo: Pick<
    SessionsRepo,
    'findLive' | 'touch' | 'revoke' | 'insert' | 'revokeAllOf' | 'clearLoginReason' | 'liveOf' | 'revokeOwn'
  >;
  /** Live sessions by token hash. */
  live: Cache<LiveSession>;
}) {
  return {
    /** The live session of a token (not revoked, not past its absolute expiry) with its user. */
    async findLive(tokenHash: string, now: Date): Promise<LiveSession | null> {
      const found = await live.get(
        tokenHash,
        async () => (await repo.findLive(tokenHash, now)) as LiveSession,
      );
      if (!found) return null;
      // A cached session is checked again against the time now.
      if (found.session.revokedAt || found.session.expiresAt.getTime() <= now.getTime()) {
        live.forget(tokenHash);
        return null;
      }
      return found;
    },
    /** Record a use of the session (its idle timeout counts from here). */
    async touch(found: LiveSession, now: Date): Promise<void> {
      await repo.touch(found.session.id, now);
      live.update(found.session.tokenHash, (f) => ({ ...f, session: { ...f.session, lastSeenAt: now } }));
    },
    /** End a session found by its token (idle, or its user no longer active). */
    async end(found: LiveSession, now: Date): Promise<void> {
      await repo.revoke(found.session.id, now);
      live.forget(found.session.tokenHash);
    },

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
      const session = await repo.insert(
        {
          tokenHash: hashToken(token),
          userId: user.id,
          tenantId: user.tenantId,
          mfaVerified: meta.mfaVerified,
          loginReasonRequired: meta.loginReasonRequired,
          ip: meta.ip,
          userAgent: meta.userAgent?.slice(0, 500) ?? null,
          lastSeenAt: now,
          expiresAt: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
        },
        tx,
      );
      return { token, session };
    },

    async revoke(id: number, tx?: DbOrTx): Promise<void> {
      await repo.revoke(id, clock.now(), tx);
    },

    /** End every live session of a user, but `exceptId` (password reset, MFA change); answers how many ended. */
    async revokeAllOf(userId: string, exceptId?: number, tx?: DbOrTx): Promise<number> {
      return repo.revokeAllOf(userId, clock.now(), exceptId, tx);
    },

    /** A user's live sessions (My account), most recently used first. */
    async liveOf(userId: string) {
      return repo.liveOf(userId, clock.now());
    },

    /** End one of a user's own sessions; false when it is not theirs or already over. */
    async endOwn(userId: string, id: number): Promise<boolean> {
      return repo.revokeOwn(userId, id, clock.now());
    },

    async clearLoginReason(id: number): Promise<void> {
      await repo.clearLoginReason(id);
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
