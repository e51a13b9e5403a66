import { describe, expect, it } from 'vitest';
import {
  validateForgotPassword,
  validateLogin,
  validatePasswordExpired,
  validateResetPassword,
} from './validation';

describe('validateLogin', () => {
  it('asks for a valid email and a password', () => {
    expect(validateLogin({ email: '', password: '' })).toEqual({
      email: { key: 'validation.invalid_email' },
      password: { key: 'validation.invalid_password' },
    });
    expect(validateLogin({ email: 'ada@example', password: 'x' }).email).toEqual({
      key: 'validation.invalid_email',
    });
    expect(validateLogin({ email: ' ada@example.com ', password: 'x' })).toEqual({
      email: undefined,
      password: undefined,
    });
  });
});

describe('validateForgotPassword', () => {
  it('tells an empty email from an invalid one', () => {
    expect(validateForgotPassword({ email: ' ' }).email?.key).toBe('validation.email_required');
    expect(validateForgotPassword({ email: 'nope' }).email?.key).toBe('validation.invalid_email');
    expect(validateForgotPassword({ email: 'a.b+c@mail.example.org' }).email).toBeUndefined();
  });
});

describe('validateResetPassword', () => {
  it('needs at least 8 characters and a matching confirmation', () => {
    expect(validateResetPassword({ newPassword: '', confirmPassword: '' })).toEqual({
      newPassword: { key: 'validation.password_required' },
      confirmPassword: { key: 'validation.confirm_required' },
    });
    expect(validateResetPassword({ newPassword: '1234567', confirmPassword: '1234567' }).newPassword).toEqual(
      {
        key: 'validation.password_too_short',
        values: { min: 8 },
      },
    );
    expect(
      validateResetPassword({ newPassword: '12345678', confirmPassword: '12345679' }).confirmPassword?.key,
    ).toBe('validation.passwords_do_not_match');
    expect(validateResetPassword({ newPassword: '12345678', confirmPassword: '12345678' })).toEqual({
      newPassword: undefined,
      confirmPassword: undefined,
    });
  });
});

describe('validatePasswordExpired', () => {
  it('also needs the current password, at least 8 characters', () => {
    expect(
      validatePasswordExpired({ currentPassword: '', newPassword: '12345678', confirmPassword: '12345678' })
        .currentPassword?.key,
    ).toBe('validation.current_password_required');
    expect(
      validatePasswordExpired({
        currentPassword: 'short',
        newPassword: '12345678',
        confirmPassword: '12345678',
      }).currentPassword?.key,
    ).toBe('validation.password_too_short');
    expect(
      validatePasswordExpired({
        currentPassword: 'old-password',
        newPassword: 'new-password',
        confirmPassword: 'new-password',
      }),
    ).toEqual({ currentPassword: undefined, newPassword: undefined, confirmPassword: undefined });
  });
});
