import { mailVerificationSendResponseSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/mail_verification/send: emails a new code; `wait_time` seconds until the next one. */
export function sendMailVerification() {
  return apiPost(AUTH_API.mailVerificationSend, undefined, { schema: mailVerificationSendResponseSchema });
}

export function useSendMailVerification() {
  return useMutation({ mutationFn: sendMailVerification });
}
