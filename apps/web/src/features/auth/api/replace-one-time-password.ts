import { loginStepResponseSchema, type passwordChangeRequestSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import type { InputOf } from '../../../lib/schema-types';

/**
 * POST /api/v1/auth/password_change: the one-time password this session signed in with, replaced;
 * the answer names the sign-in's next step (the MFA offer, or the MFA setup the admin requires).
 */
export function replaceOneTimePassword(body: InputOf<typeof passwordChangeRequestSchema>) {
  return apiPost(AUTH_API.passwordChange, body, { schema: loginStepResponseSchema });
}

export function useReplaceOneTimePassword() {
  return useMutation({ mutationFn: replaceOneTimePassword });
}
