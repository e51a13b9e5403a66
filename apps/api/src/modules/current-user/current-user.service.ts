import {
  type OwnSession,
  USER_PREFERENCE_KEYS,
  type UserPreferences,
  userPreferencesSchema,
} from '@moat/contracts/current-user';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { CurrentUserRepo } from './current-user.repo.ts';

/**
 * The known preferences of what is stored, each with a value it may have: a key stored before
 * preferences were checked, or a value no longer valid, is left out.
 */
export function knownPreferences(stored: unknown): UserPreferences {
  const known: Record<string, unknown> = {};
  if (typeof stored !== 'object' || stored === null) return known;
  for (const key of USER_PREFERENCE_KEYS) {
    if (!Object.hasOwn(stored, key)) continue;
    const value = userPreferencesSchema.shape[key].safeParse((stored as Record<string, unknown>)[key]);
    if (value.success && value.data !== undefined) known[key] = value.data;
  }
  return known as UserPreferences;
}

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

    /**
     * Save some of the user's known preferences (the body's schema refuses any other) over the
     * others; whatever else was stored before goes. Answers the user as stored.
     */
    async savePreferences(user: UserRow, patch: UserPreferences): Promise<UserRow> {
      const stored = await deps.repo.mergePreferences(user.id, knownPreferences(patch), USER_PREFERENCE_KEYS);
      return { ...user, preferences: knownPreferences(stored ?? user.preferences) };
    },
  };
}
export type CurrentUserService = ReturnType<typeof createCurrentUserService>;
