import { loginStepResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/mail_verification/verify: the emailed code. A wrong code answers 403. */
export function verifyMailCode(body: { email: string; code: string }) {
  return apiPost(AUTH_API.mailVerificationVerify, body, { schema: loginStepResponseSchema });
}

export function useVerifyMailCode() {
  return useMutation({ mutationFn: verifyMailCode });
}
