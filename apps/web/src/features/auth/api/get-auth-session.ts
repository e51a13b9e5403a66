import { AUTH_SESSION_PATH, authSessionSchema } from '@moat/contracts/web-auth';
import { apiGet } from '../../../lib/http';

/** GET /api/v1/auth/session: whether this browser has a live session. Never answers 403. */
export function getAuthSession(signal?: AbortSignal) {
  return apiGet(AUTH_SESSION_PATH, { schema: authSessionSchema, signal });
}
