import { loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/mfa/verify_public: the first code of the enrolment; success completes the sign-in. */
export function verifyMfaPublic(body: { code: string; userEmail: string; secret: string }) {
  return apiPost(AUTH_API.mfaVerifyPublic, body, { schema: loginStepResponseSchema });
}

export function useVerifyMfaPublic() {
  return useMutation({ mutationFn: verifyMfaPublic });
}
