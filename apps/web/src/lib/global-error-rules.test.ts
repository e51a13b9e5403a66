import { describe, expect, it } from 'vitest';
import { globalErrorAction } from './global-error-rules';
import { ApiError, type ApiErrorCode } from './http';

function failure(status: number, message: string, code: ApiErrorCode = 'bad_request', details?: string[]) {
  return new ApiError({
    status,
    code,
    message,
    details: details?.map((text) => ({ field: 'token', message: text })) ?? null,
  });
}

const get = (url = '/api/v1/things') => ({ method: 'GET' as const, url });

describe('global error rules (SPEC §8 "Global")', () => {
  describe('400 token mismatch', () => {
    const error = failure(400, 'CSRF token mismatch');

    it('signs out and goes to login from a console page', () => {
      expect(globalErrorAction(error, get(), '/dashboard')).toEqual({ type: 'signOut', navigate: true });
    });

    it('does nothing on the reset-password page', () => {
      expect(globalErrorAction(error, get(), '/auth/reset-password')).toBeNull();
    });

    it('signs out without leaving a sign-in or email-actions page', () => {
      expect(globalErrorAction(error, get(), '/auth/login')).toEqual({ type: 'signOut', navigate: false });
      expect(globalErrorAction(error, get(), '/email-actions/action')).toEqual({
        type: 'signOut',
        navigate: false,
      });
    });
  });

  describe('400 trial expired', () => {
    it('opens the trial-expired modal for the message', () => {
      expect(
        globalErrorAction(failure(400, 'Expiration error, trial has expired'), get(), '/dashboard'),
      ).toEqual({
        type: 'trialExpired',
      });
    });

    it('opens it for the trial_expired code too', () => {
      expect(globalErrorAction(failure(400, 'expired', 'trial_expired'), get(), '/policy')).toEqual({
        type: 'trialExpired',
      });
    });

    it('leaves other 400s to the caller', () => {
      expect(
        globalErrorAction(failure(400, 'body/email must match', 'validation_error'), get(), '/dashboard'),
      ).toBeNull();
    });
  });

  describe('403 not authenticated', () => {
    it('signs out and goes to login for the message "not authenticated"', () => {
      expect(globalErrorAction(failure(403, 'not authenticated', 'forbidden'), get(), '/dashboard')).toEqual({
        type: 'signOut',
        navigate: true,
      });
    });

    it('does the same for the detail "Invalid or Expired Token!"', () => {
      const error = failure(403, 'Forbidden', 'forbidden', ['Invalid or Expired Token!']);
      expect(globalErrorAction(error, get(), '/security-events')).toEqual({
        type: 'signOut',
        navigate: true,
      });
    });

    it('is skipped for licences URLs', () => {
      const error = failure(403, 'not authenticated', 'forbidden');
      expect(globalErrorAction(error, get('/api/v1/licenses/seats'), '/dashboard')).toBeNull();
    });

    it('does not navigate away from a sign-in or email-actions page', () => {
      const error = failure(403, 'not authenticated', 'forbidden');
      expect(globalErrorAction(error, get(), '/auth/forgot-password')).toEqual({
        type: 'signOut',
        navigate: false,
      });
      expect(globalErrorAction(error, get(), '/email-actions/restore-email')).toEqual({
        type: 'signOut',
        navigate: false,
      });
    });
  });

  describe('403 insufficient privileges', () => {
    const error = failure(403, 'Insufficient privileges', 'insufficient_privileges');

    it('opens the permission-error dialog', () => {
      expect(globalErrorAction(error, get(), '/policy')).toEqual({ type: 'insufficientPrivileges' });
      expect(globalErrorAction(failure(403, 'Insufficient privileges', 'forbidden'), get(), '/x')).toEqual({
        type: 'insufficientPrivileges',
      });
    });

    it('is silent on the login and reset-password pages', () => {
      expect(globalErrorAction(error, get(), '/auth/login')).toBeNull();
      expect(globalErrorAction(error, get(), '/auth/reset-password')).toBeNull();
    });
  });

  describe('403 password_change_required', () => {
    const error = failure(403, 'Choose a new password first', 'password_change_required');
    it('sends a console page to the sign-in page, whose sign-in asks for the new password', () => {
      expect(globalErrorAction(error, get(), '/dashboard')).toEqual({ type: 'passwordChange' });
    });
    it('leaves the sign-in area to its own step', () => {
      expect(globalErrorAction(error, get(), '/auth/login')).toBeNull();
    });
  });

  describe('403 login_reason_required', () => {
    const error = failure(403, 'Give the reason for this sign-in first', 'login_reason_required');

    it('opens the login-reason dialog in the console', () => {
      expect(globalErrorAction(error, { method: 'POST', url: '/api/v1/mfa/setup' }, '/dashboard')).toEqual({
        type: 'loginReason',
      });
    });

    it('leaves it to the sign-in flow on the sign-in pages', () => {
      expect(globalErrorAction(error, get(), '/auth/login')).toBeNull();
    });
  });

  it('leaves every other error to the caller', () => {
    expect(
      globalErrorAction(failure(403, 'The code is not valid', 'invalid_code'), get(), '/dashboard'),
    ).toBeNull();
    expect(
      globalErrorAction(failure(401, 'not authenticated', 'unauthorized'), get(), '/dashboard'),
    ).toBeNull();
    expect(globalErrorAction(failure(500, 'boom', 'internal_error'), get(), '/dashboard')).toBeNull();
    expect(globalErrorAction(failure(0, 'offline', 'network_error'), get(), '/dashboard')).toBeNull();
  });
});
