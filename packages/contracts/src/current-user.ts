import { z } from 'zod';
import { THEMES } from './constants.ts';
import { roleSchema } from './deployment.ts';

/** User preferences saved per user; applicationMode is the theme (SPEC §3). */
export const userPreferencesSchema = z
  .object({ applicationMode: z.enum(THEMES).optional() })
  .catchall(z.unknown())
  .meta({ id: 'UserPreferences' });

/** GET /api/v1/current_user (SPEC §3 "Current user"). */
export const currentUserSchema = z
  .object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    role: roleSchema,
    hidden: z.boolean(),
    mfa_secret_set: z.boolean(),
    on_boarding_required: z.boolean(),
    automation_customer: z.boolean(),
    view_private_data: z.boolean(),
    view_policy: z.boolean(),
    view_edit_policy: z.boolean(),
    locked_status: z.object({ should_lock: z.boolean() }),
    user_preferences: userPreferencesSchema,
  })
  .meta({ id: 'CurrentUser' });
export type CurrentUser = z.infer<typeof currentUserSchema>;

/** The message of the 403 answered to a call that needs a session and has none (SPEC §8 "Global"). */
export const NOT_AUTHENTICATED_MESSAGE = 'not authenticated';
export const SESSION_COOKIE = 'moat_session';
