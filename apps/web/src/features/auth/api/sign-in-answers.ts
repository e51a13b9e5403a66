import { LOGIN_STEPS, type LoginStep } from '@moat/contracts/auth-paths';
import type { RecaptchaConfig } from '@moat/contracts/public-config';
import { field, isBoolean, isString, object } from '../../../lib/answer-readers';

/**
 * Readers of the answers the public bundle's login page gets (the shapes of
 * `@moat/contracts/auth` and `public-config`), without zod.
 */

const isLoginStep = (value: unknown): value is LoginStep =>
  typeof value === 'string' && (LOGIN_STEPS as readonly string[]).includes(value);

/** What the login page reads of a login answer (LoginStepResponse): the step the server asks for. */
export interface LoginStepAnswer {
  next: LoginStep;
  email: string;
  login_reason_required: boolean;
}

export const loginStepAnswer = {
  parse(value: unknown): LoginStepAnswer {
    const fields = object(value, 'LoginStepResponse');
    return {
      next: field(fields, 'next', 'LoginStepResponse', isLoginStep),
      email: field(fields, 'email', 'LoginStepResponse', isString),
      login_reason_required: field(fields, 'login_reason_required', 'LoginStepResponse', isBoolean),
    };
  },
};

/**
 * GET /api/v1/auth/session (AuthSession): whether this browser has a session, and whether it owes
 * a login reason or the replacement of a one-time password first.
 */
export const authSessionAnswer = {
  parse(value: unknown) {
    const fields = object(value, 'AuthSession');
    return {
      authenticated: field(fields, 'authenticated', 'AuthSession', isBoolean),
      login_reason_required: field(fields, 'login_reason_required', 'AuthSession', isBoolean),
      password_change_required: field(fields, 'password_change_required', 'AuthSession', isBoolean),
    };
  },
};

const isProvider = (value: unknown): value is RecaptchaConfig['provider'] =>
  value === 'altcha' || value === 'recaptcha' || value === 'turnstile';
const isKey = (value: unknown): value is string | null => value === null || typeof value === 'string';

/** GET /api/v1/generic/recaptcha_config (RecaptchaConfig). */
export const captchaConfigAnswer = {
  parse(value: unknown): RecaptchaConfig {
    const fields = object(value, 'RecaptchaConfig');
    return {
      provider: field(fields, 'provider', 'RecaptchaConfig', isProvider),
      key: field(fields, 'key', 'RecaptchaConfig', isKey),
    };
  },
};
