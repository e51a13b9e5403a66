import { type forgotPasswordRequestSchema, successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import type { InputOf } from '../../../lib/schema-types';

/** POST /api/v1/auth/forgot_password: answers the same whether or not the account exists. */
export function forgotPassword(body: InputOf<typeof forgotPasswordRequestSchema>) {
  return apiPost(AUTH_API.forgotPassword, body, { schema: successSchema });
}

export function useForgotPassword() {
  return useMutation({ mutationFn: forgotPassword });
}
