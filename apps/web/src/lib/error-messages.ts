import { type ApiErrorCode, isApiError } from './http';
import type { TranslationKey } from './i18n';

/**
 * The translated message of every error code. The switch is exhaustive: a code added to
 * `ERROR_CODES` in contracts does not compile here until it has words.
 */
export function errorMessageKey(code: ApiErrorCode): TranslationKey {
  switch (code) {
    case 'bad_request':
      return 'errors.api.bad_request';
    case 'validation_error':
      return 'errors.api.validation_error';
    case 'unauthorized':
      return 'errors.api.unauthorized';
    case 'forbidden':
      return 'errors.api.forbidden';
    case 'not_found':
      return 'errors.api.not_found';
    case 'method_not_allowed':
      return 'errors.api.method_not_allowed';
    case 'conflict':
      return 'errors.api.conflict';
    case 'gone':
      return 'errors.api.gone';
    case 'payload_too_large':
      return 'errors.api.payload_too_large';
    case 'unsupported_media_type':
      return 'errors.api.unsupported_media_type';
    case 'rate_limited':
      return 'errors.api.rate_limited';
    case 'internal_error':
      return 'errors.api.internal_error';
    case 'service_unavailable':
      return 'errors.api.service_unavailable';
    case 'invalid_characters':
      return 'errors.api.invalid_characters';
    case 'invalid_credentials':
      return 'errors.api.invalid_credentials';
    case 'password_expired':
      return 'errors.api.password_expired';
    case 'tenant_approval_required':
      return 'errors.api.tenant_approval_required';
    case 'captcha_failed':
      return 'errors.api.captcha_failed';
    case 'captcha_required':
      return 'errors.api.captcha_required';
    case 'invalid_code':
      return 'errors.api.invalid_code';
    case 'code_expired':
      return 'errors.api.code_expired';
    case 'max_attempts_reached':
      return 'errors.api.max_attempts_reached';
    case 'login_expired':
      return 'errors.api.login_expired';
    case 'mfa_locked':
      return 'errors.api.mfa_locked';
    case 'mfa_required_by_admin':
      return 'errors.api.mfa_required_by_admin';
    case 'invalid_token':
      return 'errors.api.invalid_token';
    case 'login_reason_required':
      return 'errors.api.login_reason_required';
    case 'password_change_required':
      return 'errors.api.password_change_required';
    case 'insufficient_privileges':
      return 'errors.api.insufficient_privileges';
    case 'trial_expired':
      return 'errors.api.trial_expired';
    case 'network_error':
      return 'errors.api.network_error';
    case 'invalid_response':
      return 'errors.api.invalid_response';
    default: {
      const unhandled: never = code;
      throw new Error(`No message for error code ${String(unhandled)}`);
    }
  }
}

/** The message key for any thrown value: an ApiError's code, anything else as an internal error. */
export function messageKeyOf(error: unknown): TranslationKey {
  return errorMessageKey(isApiError(error) ? error.code : 'internal_error');
}
