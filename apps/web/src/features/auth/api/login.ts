import { type LoginRequest, loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/auth/login: answers the next sign-in step (done, MFA code, mail verification, MFA setup). */
export function login(body: LoginRequest) {
  return apiPost(AUTH_API.login, body, { schema: loginStepResponseSchema });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
