import type { LoginStepResponse } from '@moat/contracts/auth';
import { isApiError } from '../../lib/http';
import type { TranslationKey } from '../../lib/i18n';

/** What each step after the login form (code form, mail verification, required MFA setup) gets. */
export interface SignInStepProps {
  email: string;
  /** The server's answer names the next step. */
  onStep: (answer: LoginStepResponse) => void;
  /** Back to the login form, with a notice saying why (or none when the user went back). */
  onCancel: (notice: TranslationKey | null) => void;
}

/**
 * Errors of a sign-in step that end the sign-in: back to the login form with this notice
 * (SPEC §8: a one-time code answered 429 returns to the login form; too many wrong codes of
 * the account over every sign-in pause its codes, which the notice says). Null for the others.
 */
export function restartNotice(error: unknown): TranslationKey | null {
  if (!isApiError(error)) return null;
  if (error.code === 'mfa_locked') return 'auth.signIn.mfaLocked';
  if (error.status === 429) return 'auth.signIn.tooManyAttempts';
  if (error.code === 'login_expired') return 'errors.api.login_expired';
  return null;
}
