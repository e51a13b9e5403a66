import { PASSWORD_MIN_LENGTH } from '@moat/contracts/constants';
import { PUBLIC_EMAIL_PATTERN } from '@moat/contracts/public-actions';
import type { FieldMessage, FormErrors } from '../../lib/use-form';

/** Form rules of SPEC §5 for the sign-in area. Each returns the failing fields' messages. */

const tooShort: FieldMessage = { key: 'validation.password_too_short', values: { min: PASSWORD_MIN_LENGTH } };

export function isValidEmail(value: string): boolean {
  return PUBLIC_EMAIL_PATTERN.test(value.trim());
}

/** Login: email required and valid (invalid_email); password required (invalid_password). */
export function validateLogin(values: { email: string; password: string }): FormErrors<typeof values> {
  return {
    email: isValidEmail(values.email) ? undefined : { key: 'validation.invalid_email' },
    password: values.password ? undefined : { key: 'validation.invalid_password' },
  };
}

/** Forgot password: email required and valid. */
export function validateForgotPassword(values: { email: string }): FormErrors<typeof values> {
  if (!values.email.trim()) return { email: { key: 'validation.email_required' } };
  return { email: isValidEmail(values.email) ? undefined : { key: 'validation.invalid_email' } };
}

function newPasswordErrors(newPassword: string, confirmPassword: string) {
  let newError: FieldMessage | undefined;
  if (!newPassword) newError = { key: 'validation.password_required' };
  else if (newPassword.length < PASSWORD_MIN_LENGTH) newError = tooShort;

  let confirmError: FieldMessage | undefined;
  if (!confirmPassword) confirmError = { key: 'validation.confirm_required' };
  else if (confirmPassword !== newPassword) confirmError = { key: 'validation.passwords_do_not_match' };

  return { newPassword: newError, confirmPassword: confirmError };
}

/** Reset password: new password required, at least 8 characters; confirm required and equal. */
export function validateResetPassword(values: {
  newPassword: string;
  confirmPassword: string;
}): FormErrors<typeof values> {
  return newPasswordErrors(values.newPassword, values.confirmPassword);
}

/** Password expired: current required, at least 8; new required, at least 8; confirm equal. */
export function validatePasswordExpired(values: {
  currentPassword: string;
  newPassword: string;
  confirmPassword: string;
}): FormErrors<typeof values> {
  let currentError: FieldMessage | undefined;
  if (!values.currentPassword) currentError = { key: 'validation.current_password_required' };
  else if (values.currentPassword.length < PASSWORD_MIN_LENGTH) currentError = tooShort;
  return { currentPassword: currentError, ...newPasswordErrors(values.newPassword, values.confirmPassword) };
}
