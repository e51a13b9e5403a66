import { successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { apiPost } from '../../../lib/http';

/** The longest reason the API takes. */
const MAX_REASON_LENGTH = 500;

/** POST /api/v1/auth/logout_reason: why the browser was sent back to sign-in. */
export function recordLogoutReason(reason: string) {
  return apiPost(
    AUTH_API.logoutReason,
    { reason: reason.trim().slice(0, MAX_REASON_LENGTH) },
    { schema: successSchema },
  );
}
