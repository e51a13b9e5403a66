import { z } from 'zod/mini';
import { PASSWORD_MIN_LENGTH, THEMES } from './constants.ts';
import { roleSchema } from './deployment.ts';

/**
 * User preferences saved per user: these keys only, each validated (applicationMode is the theme,
 * SPEC §3). Nothing else is kept or answered.
 */
export const userPreferencesSchema = z
  .object({ applicationMode: z.optional(z.enum(THEMES)) })
  .register(z.globalRegistry, { id: 'UserPreferences' });
export type UserPreferences = z.infer<typeof userPreferencesSchema>;
export const USER_PREFERENCE_KEYS = Object.keys(userPreferencesSchema.shape) as (keyof UserPreferences)[];

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
  .register(z.globalRegistry, { id: 'CurrentUser' });
export type CurrentUser = z.infer<typeof currentUserSchema>;

/** The message of the 403 answered to a call that needs a session and has none (SPEC §8 "Global"). */
export const NOT_AUTHENTICATED_MESSAGE = 'not authenticated';
export const SESSION_COOKIE = 'moat_session';

/** The signed-in user's own account (the user menu's "My account"). */
export const ACCOUNT_API = {
  /** POST: change the password; the current one is required and every other session ends. */
  password: '/api/v1/current_user/password',
  /** GET: the user's live sessions. */
  sessions: '/api/v1/current_user/sessions',
  /** DELETE: end one of them (another than this one). */
  session: '/api/v1/current_user/sessions/:id',
  /** POST: end every session but this one. */
  endOtherSessions: '/api/v1/current_user/sessions/end_others',
} as const;

export const changePasswordRequestSchema = z
  .strictObject({
    current_password: z.string().check(z.minLength(1), z.maxLength(1024)),
    new_password: z
      .string()
      .check(z.minLength(PASSWORD_MIN_LENGTH, 'password_too_short'), z.maxLength(1024, 'password_too_long')),
    confirm_password: z.string().check(z.maxLength(1024)),
  })
  .check(
    z.refine((v) => v.new_password === v.confirm_password, {
      path: ['confirm_password'],
      message: 'passwords_do_not_match',
    }),
  )
  .register(z.globalRegistry, { id: 'ChangePasswordRequest' });
export type ChangePasswordRequest = z.infer<typeof changePasswordRequestSchema>;

export const ownSessionSchema = z.object({
  id: z.string(),
  ip: z.nullable(z.string()),
  user_agent: z.nullable(z.string()),
  created_at: z.string(),
  last_seen_at: z.string(),
  /** The session this answer was asked with. */
  current: z.boolean(),
});
export type OwnSession = z.infer<typeof ownSessionSchema>;
export const ownSessionsSchema = z
  .object({ sessions: z.array(ownSessionSchema) })
  .register(z.globalRegistry, { id: 'OwnSessions' });
export const ownSessionParamsSchema = z.object({ id: z.string().check(z.regex(/^\d{1,18}$/)) });
export const endedSessionsSchema = z.object({ ended: z.int() });
