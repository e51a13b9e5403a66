import { CONSOLE_API } from '@moat/contracts/console';
import { type CurrentUser, currentUserSchema } from '@moat/contracts/current-user';
import { apiPut } from '../http';

export function savePreferences(preferences: CurrentUser['user_preferences']): Promise<CurrentUser> {
  return apiPut(CONSOLE_API.preferences, preferences, { schema: currentUserSchema });
}
