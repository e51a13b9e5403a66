import { successSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/mfa/verify_setup: the first code of the enrolment; success turns MFA on. */
export function verifyMfaSetup(body: { code: string; userEmail: string; secret: string }) {
  return apiPost(AUTH_API.mfaVerifySetup, body, { schema: successSchema });
}

export function useVerifyMfaSetup() {
  return useMutation({ mutationFn: verifyMfaSetup });
}
