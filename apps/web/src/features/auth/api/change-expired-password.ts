import { type passwordExpiredRequestSchema, successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import type { InputOf } from '../../../lib/schema-types';

/** POST /api/v1/auth/password_expired: replaces an expired password, proven by the current one. */
export function changeExpiredPassword(body: InputOf<typeof passwordExpiredRequestSchema>) {
  return apiPost(AUTH_API.passwordExpired, body, { schema: successSchema });
}

export function useChangeExpiredPassword() {
  return useMutation({ mutationFn: changeExpiredPassword });
}
