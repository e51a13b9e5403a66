import { loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/auth/mfa/verify: the one-time code of a sign-in. A wrong code answers success false. */
export function verifyMfaCode(code: string) {
  return apiPost(AUTH_API.mfaCode, { code }, { schema: loginStepResponseSchema });
}

export function useVerifyMfaCode() {
  return useMutation({ mutationFn: verifyMfaCode });
}
