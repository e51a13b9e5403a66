import { authSessionSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { apiGet } from '../../../lib/http';

/** GET /api/v1/auth/session: whether this browser has a live session. Never answers 403. */
export function getAuthSession(signal?: AbortSignal) {
  return apiGet(AUTH_API.session, { schema: authSessionSchema, signal });
}
