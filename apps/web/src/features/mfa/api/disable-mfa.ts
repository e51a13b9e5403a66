import { successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { request } from '../../../lib/http';

/** DELETE /api/v1/mfa/disable/{email}: turns MFA off, with the password entered again. */
export function disableMfa({ email, password }: { email: string; password: string }) {
  return request('DELETE', AUTH_API.mfaDisable(email), { body: { password }, schema: successSchema });
}

export function useDisableMfa() {
  return useMutation({ mutationFn: disableMfa });
}
