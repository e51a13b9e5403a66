import { z } from 'zod';

/**
 * What the web needs of the sign-in API beyond `auth.ts`: the session probe the API declares
 * inline, the start-up token parameters (SPEC §7) and the wordings of SPEC §8 "Global" that the
 * web's global error rules match. Added by the web.
 */
export const AUTH_SESSION_PATH = '/api/v1/auth/session';

/** GET /api/v1/auth/session: whether this browser has a live session (never a 403). */
export const authSessionSchema = z.object({
  authenticated: z.boolean(),
  login_reason_required: z.boolean(),
});
export type AuthSession = z.infer<typeof authSessionSchema>;

/** URL parameters that carry a sign-in token at start-up (SPEC §4 "Start-up", §7). */
export const STARTUP_TOKEN_PARAMS = ['accessToken', 'firstTimeToken', 'authtoken'] as const;

/** SPEC §8 "Global": the messages (or parts of them) that trigger a global rule. */
export const GLOBAL_ERROR_TEXT = {
  tokenMismatch: 'token mismatch',
  trialExpired: 'Expiration error, trial has expired',
  invalidOrExpiredToken: 'Invalid or Expired Token!',
  insufficientPrivileges: 'Insufficient privileges',
  /** Calls to licence URLs never sign the user out. */
  licencesUrlPart: 'licenses',
} as const;
