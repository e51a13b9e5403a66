/**
 * The API's error answers without zod: the codes, their statuses, the shape and its check. The
 * public pages' bundle reads errors through this module; `./errors.ts` adds the schemas (and a
 * test keeps the two in step).
 */

/**
 * The closed set of error codes the API answers with. The web maps each one to a
 * translated message with an exhaustive switch, so adding a code here is a compile
 * error in the web until it has words.
 */
export const ERROR_CODES = [
  'bad_request',
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'gone',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'service_unavailable',
  // A NUL character or text that is not valid UTF-8 anywhere in the request (PostgreSQL text cannot hold them).
  'invalid_characters',
  // Sign-in (SPEC §8 "Sign-in area")
  'invalid_credentials',
  'password_expired',
  'tenant_approval_required',
  'captcha_failed',
  // The account saw many failed sign-ins: this browser must pass the stronger captcha (?strength=strong).
  'captcha_required',
  'invalid_code',
  'code_expired',
  'max_attempts_reached',
  'login_expired',
  // Too many wrong sign-in codes of one user, over every sign-in: codes are refused for a while (Retry-After).
  'mfa_locked',
  'mfa_required_by_admin',
  'invalid_token',
  'login_reason_required',
  // The first sign-in with a generated (one-time) password: a new password is due before anything else.
  'password_change_required',
  'insufficient_privileges',
  'trial_expired',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The HTTP status each code is answered with. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  invalid_characters: 400,
  invalid_credentials: 401,
  password_expired: 403,
  tenant_approval_required: 403,
  captcha_failed: 400,
  captcha_required: 400,
  invalid_code: 403,
  code_expired: 403,
  max_attempts_reached: 403,
  login_expired: 401,
  mfa_locked: 429,
  mfa_required_by_admin: 403,
  invalid_token: 401,
  login_reason_required: 403,
  password_change_required: 403,
  insufficient_privileges: 403,
  trial_expired: 400,
};

/** One failing field of a validation error. */
export interface FieldError {
  /** Dotted path of the failing field, e.g. "body.email". */
  field: string;
  message: string;
}

/** Every error the API sends has exactly this shape. */
export interface ErrorResponse {
  statusCode: number;
  code: ErrorCode;
  message: string;
  details: FieldError[] | null;
  reqId: string;
}

const isString = (value: unknown): value is string => typeof value === 'string';

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== 'object' || value === null) return false;
  const { field, message } = value as Record<string, unknown>;
  return isString(field) && isString(message);
}

/** Whether `value` has the shape of ErrorResponse (the API's `errorResponseSchema`). */
export function isErrorResponse(value: unknown): value is ErrorResponse {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { statusCode, code, message, details, reqId } = value as Record<string, unknown>;
  return (
    Number.isSafeInteger(statusCode) &&
    (ERROR_CODES as readonly unknown[]).includes(code) &&
    isString(message) &&
    (details === null || (Array.isArray(details) && details.every(isFieldError))) &&
    isString(reqId)
  );
}

/** SPEC §8 "Global": the messages (or parts of them) that trigger a global rule of the web. */
export const GLOBAL_ERROR_TEXT = {
  tokenMismatch: 'token mismatch',
  trialExpired: 'Expiration error, trial has expired',
  invalidOrExpiredToken: 'Invalid or Expired Token!',
  insufficientPrivileges: 'Insufficient privileges',
  /** Calls to licence URLs never sign the user out. */
  licencesUrlPart: 'licenses',
} as const;
