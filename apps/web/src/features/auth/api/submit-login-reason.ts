import { successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/auth/login_reason: the reason of a maintenance sign-in (SPEC §4), logged as Login-Reason. */
export function submitLoginReason(loginReason: string) {
  return apiPost(AUTH_API.loginReason, { loginReason }, { schema: successSchema });
}

export function useSubmitLoginReason() {
  return useMutation({ mutationFn: submitLoginReason });
}
