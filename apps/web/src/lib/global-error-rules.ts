import { NOT_AUTHENTICATED_MESSAGE } from '@moat/contracts/current-user';
import { GLOBAL_ERROR_TEXT } from '@moat/contracts/errors';
import { ROUTES } from '@moat/contracts/routes';
import type { ApiError, ApiErrorContext } from './http';

/**
 * What a failed call makes the app do, whoever made the call (SPEC §8 "Global"):
 * - `signOut`: forget the signed-in user and, unless `navigate` is false, go to the sign-in page;
 * - `trialExpired`: the non-closable trial-expired modal;
 * - `insufficientPrivileges`: the permission-error dialog;
 * - `loginReason`: the login-reason dialog of the maintenance rule (SPEC §4);
 * - `passwordChange`: to the sign-in page, whose sign-in asks for the new password a session
 *   opened with a one-time password owes.
 * Anything else (null) is only the caller's business.
 */
export type GlobalErrorAction =
  | { type: 'signOut'; navigate: boolean }
  | { type: 'trialExpired' }
  | { type: 'insufficientPrivileges' }
  | { type: 'loginReason' }
  | { type: 'passwordChange' };

const under = (pathname: string, root: string) => pathname === root || pathname.startsWith(`${root}/`);

export const isAuthPage = (pathname: string) => under(pathname, ROUTES.auth.root);
export const isEmailActionsPage = (pathname: string) => under(pathname, ROUTES.emailActions.root);
const isLoginPage = (pathname: string) => under(pathname, ROUTES.auth.login);
const isResetPasswordPage = (pathname: string) => under(pathname, ROUTES.auth.resetPassword);

function isNotAuthenticated(error: ApiError): boolean {
  if (error.message.includes(NOT_AUTHENTICATED_MESSAGE)) return true;
  const expired = GLOBAL_ERROR_TEXT.invalidOrExpiredToken;
  return error.message === expired || (error.details ?? []).some((detail) => detail.message === expired);
}

/**
 * The global rule a failed call triggers, given the call and the page the user is on
 * (`pathname` of the hash route).
 */
export function globalErrorAction(
  error: ApiError,
  call: ApiErrorContext,
  pathname: string,
): GlobalErrorAction | null {
  const leaveForLogin = !isAuthPage(pathname) && !isEmailActionsPage(pathname);

  if (error.status === 400) {
    if (error.message.includes(GLOBAL_ERROR_TEXT.tokenMismatch)) {
      return isResetPasswordPage(pathname) ? null : { type: 'signOut', navigate: leaveForLogin };
    }
    if (error.code === 'trial_expired' || error.message.includes(GLOBAL_ERROR_TEXT.trialExpired)) {
      return { type: 'trialExpired' };
    }
    return null;
  }

  if (error.status === 403) {
    if (isNotAuthenticated(error)) {
      if (call.url.includes(GLOBAL_ERROR_TEXT.licencesUrlPart)) return null;
      return { type: 'signOut', navigate: leaveForLogin };
    }
    if (
      error.code === 'insufficient_privileges' ||
      error.message.includes(GLOBAL_ERROR_TEXT.insufficientPrivileges)
    ) {
      return isLoginPage(pathname) || isResetPasswordPage(pathname)
        ? null
        : { type: 'insufficientPrivileges' };
    }
    // The sign-in flow asks for the reason itself; elsewhere a session owing it gets the dialog.
    if (error.code === 'login_reason_required') return isAuthPage(pathname) ? null : { type: 'loginReason' };
    if (error.code === 'password_change_required')
      return isAuthPage(pathname) ? null : { type: 'passwordChange' };
  }
  return null;
}
