import { AUTH_API } from '@moat/contracts/auth-paths';
import { apiGet } from '../../../lib/http';
import { authSessionAnswer } from './sign-in-answers';

/**
 * GET /api/v1/auth/session: whether this browser has a live session. Never answers 403. Read
 * without zod, so the public bundle's login page can ask too.
 */
export function getAuthSession(signal?: AbortSignal) {
  return apiGet(AUTH_API.session, { schema: authSessionAnswer, signal });
}
