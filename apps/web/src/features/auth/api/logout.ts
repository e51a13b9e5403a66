import { successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/auth/logout: ends the session on the server. */
export function logout() {
  return apiPost(AUTH_API.logout, undefined, { schema: successSchema });
}

export function useLogout() {
  return useMutation({ mutationFn: logout });
}
