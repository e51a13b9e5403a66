import type { OwnSession } from '@moat/contracts/current-user';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { CurrentUserRepo } from './current-user.repo.ts';

/** Preferences are small: at most this many keys, and this many characters stored as JSON. */
const MAX_PREFERENCES = 30;
const MAX_PREFERENCES_JSON = 8_192;

export function createCurrentUserService(deps: {
  repo: Pick<CurrentUserRepo, 'mergePreferences'>;
  sessions: Pick<SessionsService, 'liveOf' | 'endOwn' | 'revokeAllOf'>;
  audit: Pick<AuditRepo, 'record'>;
}) {
  const audited = (user: UserRow, actor: Actor, details: Record<string, unknown>) =>
    deps.audit.record(actor, {
      tenantId: user.tenantId,
      action: 'auth.sessions_end',
      targetType: 'user',
      targetId: user.id,
      details,
    });

  return {
    /** The user's live sessions, the one asking marked. */
    async sessions(user: UserRow, currentId: number): Promise<OwnSession[]> {
      const rows = await deps.sessions.liveOf(user.id);
      return rows.map((r) => ({
        id: String(r.id),
        ip: r.ip,
        user_agent: r.userAgent,
        created_at: r.createdAt.toISOString(),
        last_seen_at: r.lastSeenAt.toISOString(),
        current: r.id === currentId,
      }));
    },

    /** End another of the user's sessions (this one ends by signing out); audited. */
    async endSession(user: UserRow, currentId: number, id: number, actor: Actor): Promise<void> {
      if (id === currentId) {
        throw new AppError('validation_error', 'This is the session you are using: sign out to end it');
      }
      if (!(await deps.sessions.endOwn(user.id, id))) {
        throw new AppError('not_found', 'No such session of yours is open');
      }
      await audited(user, actor, { session: String(id) });
    },

    /** End every session of the user but this one; audited with how many ended. */
    async endOtherSessions(user: UserRow, currentId: number, actor: Actor): Promise<number> {
      const ended = await deps.sessions.revokeAllOf(user.id, currentId);
      await audited(user, actor, { others: ended });
      return ended;
    },

    /** Save some of the user's preferences over the others; answers the user as stored. */
    async savePreferences(user: UserRow, patch: Record<string, unknown>): Promise<UserRow> {
      // The limits hold for what is stored, not only for one call.
      const merged = { ...(user.preferences as Record<string, unknown>), ...patch };
      if (
        Object.keys(merged).length > MAX_PREFERENCES ||
        JSON.stringify(merged).length > MAX_PREFERENCES_JSON
      ) {
        throw new AppError('validation_error', 'Too many preferences: at most 30 small values are kept');
      }
      const stored = await deps.repo.mergePreferences(user.id, patch);
      return { ...user, preferences: stored ?? user.preferences };
    },
  };
}
export type CurrentUserService = ReturnType<typeof createCurrentUserService>;
