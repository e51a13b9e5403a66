import { loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/auth/token: signs in with the one-time access token of a sign-in link. */
export function tokenLogin(accessToken: string) {
  return apiPost(AUTH_API.tokenLogin, { accessToken }, { schema: loginStepResponseSchema });
}
