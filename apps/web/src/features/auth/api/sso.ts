import { loginStepResponseSchema } from '@moat/contracts/auth';
import { SSO_API } from '@moat/contracts/sso';
import { apiPost } from '../../../lib/http';

export type SsoProvider = 'saml' | 'microsoft' | 'google';

/**
 * The identity provider's URL for this email's organisation: with Moat's AuthnRequest (SAML) or
 * its authorization request (Microsoft, Google: code flow with PKCE).
 */
export function startSsoSignIn(provider: SsoProvider, email: string): Promise<{ url: string }> {
  return apiPost(provider === 'saml' ? SSO_API.samlStart : SSO_API.oidcStart(provider), { email });
}

/** The popup's one-time hand-over token for the sign-in's next step (a session, or Moat's MFA). */
export function completeSsoSignIn(token: string) {
  return apiPost(SSO_API.complete, { token }, { schema: loginStepResponseSchema });
}
