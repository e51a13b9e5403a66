import { mfaEnrolmentSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';

/** PUT /api/v1/mfa/setup: a new secret and its QR code, pending until a code from it is verified. */
export function startMfaSetup(userEmail: string) {
  return apiPut(AUTH_API.mfaSetup, { userEmail }, { schema: mfaEnrolmentSchema });
}

export function useStartMfaSetup() {
  return useMutation({ mutationFn: startMfaSetup });
}
