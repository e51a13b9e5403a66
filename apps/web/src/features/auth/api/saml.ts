import { loginStepResponseSchema } from '@moat/contracts/auth';
import { SSO_API } from '@moat/contracts/sso';
import { apiPost } from '../../../lib/http';

/** The identity provider's URL for this email's organisation (with Moat's AuthnRequest). */
export function startSamlSignIn(email: string): Promise<{ url: string }> {
  return apiPost(SSO_API.samlStart, { email });
}

/** The popup's one-time hand-over token for the sign-in's next step (a session, or Moat's MFA). */
export function completeSsoSignIn(token: string) {
  return apiPost(SSO_API.complete, { token }, { schema: loginStepResponseSchema });
}
