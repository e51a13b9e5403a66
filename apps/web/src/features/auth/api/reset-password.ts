import { type resetPasswordRequestSchema, successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import type { InputOf } from '../../../lib/schema-types';

/** POST /api/v1/auth/reset_password with the token of the emailed link. */
export function resetPassword(body: InputOf<typeof resetPasswordRequestSchema>) {
  return apiPost(AUTH_API.resetPassword, body, { schema: successSchema });
}

export function useResetPassword() {
  return useMutation({ mutationFn: resetPassword });
}
