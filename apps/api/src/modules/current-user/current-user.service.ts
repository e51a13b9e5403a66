import { AppError } from '../../errors.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { CurrentUserRepo } from './current-user.repo.ts';

/** Preferences are small: at most this many keys, and this many characters stored as JSON. */
const MAX_PREFERENCES = 30;
const MAX_PREFERENCES_JSON = 8_192;

export function createCurrentUserService(deps: { repo: Pick<CurrentUserRepo, 'mergePreferences'> }) {
  return {
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
