import { fillPath } from './api-paths.ts';

/*
 * The sign-in area's paths and the server's fixed messages, without zod: the public bundle's login
 * page imports them (the schemas are in `auth.ts`).
 */

/** Patterns the API registers for the auth paths that carry a parameter (`AUTH_API` fills them). */
export const AUTH_ROUTES = {
  mfaDisable: '/api/v1/mfa/disable/:email',
} as const;

/** Auth paths (DESIGN §4: /api/v1/auth/…) and the MFA and mail-verification calls of SPEC §7. */
export const AUTH_API = {
  captchaChallenge: '/api/v1/auth/captcha/challenge',
  login: '/api/v1/auth/login',
  mfaCode: '/api/v1/auth/mfa/verify',
  logout: '/api/v1/auth/logout',
  forgotPassword: '/api/v1/auth/forgot_password',
  resetPassword: '/api/v1/auth/reset_password',
  passwordExpired: '/api/v1/auth/password_expired',
  /** The one-time (generated) password's replacement, inside the sign-in that used it. */
  passwordChange: '/api/v1/auth/password_change',
  loginReason: '/api/v1/auth/login_reason',
  logoutReason: '/api/v1/auth/logout_reason',
  tokenLogin: '/api/v1/auth/token',
  /** SPEC §7: the msp brand's token, as a multipart form; the answer is text. */
  serverLogin: '/api/v1/current_user/server_login',
  /** SPEC §7: the checkpoint brand's token, or the firewall vendor's with its serial number. */
  autoLogin: '/api/v1/current_user/auto_login',
  session: '/api/v1/auth/session',
  mailVerificationSend: '/api/v1/mail_verification/send',
  mailVerificationVerify: '/api/v1/mail_verification/verify',
  mfaSetup: '/api/v1/mfa/setup',
  mfaSetupPublic: '/api/v1/mfa/setup_public',
  mfaVerifySetup: '/api/v1/mfa/verify_setup',
  mfaVerifyPublic: '/api/v1/mfa/verify_public',
  mfaDisable: (email: string) => fillPath(AUTH_ROUTES.mfaDisable, { email }),
} as const;

export const INVALID_CREDENTIALS_MESSAGE = 'Invalid email or password';
/** SPEC §8: a login answer containing this goes to the password-expired page. */
export const PASSWORD_EXPIRED_MESSAGE = 'Expiration error, password has expired';
/** A tenant that signs in with SSO only (Settings → Sign-in, issue 15) refuses its users' passwords. */
export const PASSWORDS_OFF_MESSAGE =
  'Your organisation signs in with single sign-on. Use “Sign in with SAML” instead of a password.';
/** A session whose one-time password is still to be replaced: every other call answers this. */
export const PASSWORD_CHANGE_REQUIRED_MESSAGE =
  'Choose a new password first: the one you signed in with works only once';
export const TENANT_APPROVAL_MESSAGE =
  'Support access to this tenant is turned off. An administrator of the tenant must approve support access before you can sign in.';

/**
 * What the sign-in needs next. `done`: a session is open. `mfa_code`: the one-time-code form.
 * `mail_verification`: a code was emailed, then `mfa_setup` (MFA required by the admin).
 * `password_change`: the password used was a one-time one (the generated first admin's): a
 * session is open that can do nothing but choose a new password and sign out.
 * `mfa_offer`: a session is open and the user, who has no MFA, is offered to set it up (skippable).
 */
export const LOGIN_STEPS = [
  'done',
  'mfa_code',
  'mail_verification',
  'mfa_setup',
  'password_change',
  'mfa_offer',
] as const;
export type LoginStep = (typeof LOGIN_STEPS)[number];
