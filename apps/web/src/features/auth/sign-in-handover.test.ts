import { afterEach, describe, expect, it } from 'vitest';
import {
  hasSignInResume,
  SIGN_IN_RESUME_MAX_AGE_MS,
  saveSignInResume,
  takeSignInResume,
} from './sign-in-handover';

afterEach(() => window.sessionStorage.clear());

describe('the sign-in handed from the public login page to the console', () => {
  it('is taken once', () => {
    expect(
      saveSignInResume({ next: 'mail_verification', email: 'ada@example.com', login_reason_required: false }),
    ).toBe(true);
    expect(hasSignInResume()).toBe(true);
    expect(takeSignInResume()).toEqual({
      next: 'mail_verification',
      email: 'ada@example.com',
      login_reason_required: false,
    });
    expect(hasSignInResume()).toBe(false);
    expect(takeSignInResume()).toBeNull();
  });

  it.each([
    'not json',
    '[]',
    'null',
    JSON.stringify({ next: 'admin', email: 'a@b.c', login_reason_required: false }),
    JSON.stringify({ next: 'done', email: 7, login_reason_required: false }),
    JSON.stringify({ next: 'done', email: 'a@b.c' }),
  ])('ignores (and removes) what is not one: %s', (raw) => {
    window.sessionStorage.setItem('moat.signIn.resume', raw);
    expect(takeSignInResume()).toBeNull();
    expect(hasSignInResume()).toBe(false);
  });

  it('is not followed once it is older than a minute (a tab that never got to the console)', () => {
    const resume = { next: 'mfa_code', email: 'ada@example.com', login_reason_required: false } as const;
    saveSignInResume(resume, 1_000);
    expect(hasSignInResume(1_000 + SIGN_IN_RESUME_MAX_AGE_MS)).toBe(true);
    expect(hasSignInResume(1_001 + SIGN_IN_RESUME_MAX_AGE_MS)).toBe(false);
    expect(takeSignInResume(1_001 + SIGN_IN_RESUME_MAX_AGE_MS)).toBeNull();
    // Nor one from the future (a clock set back).
    saveSignInResume(resume, 5_000);
    expect(takeSignInResume(4_000)).toBeNull();
  });

  it('says it could not be saved when the browser keeps no session storage', () => {
    const own = Object.getOwnPropertyDescriptor(window, 'sessionStorage');
    Object.defineProperty(window, 'sessionStorage', {
      configurable: true,
      get() {
        throw new DOMException('blocked', 'SecurityError');
      },
    });
    try {
      expect(saveSignInResume({ next: 'done', email: 'a@b.c', login_reason_required: false })).toBe(false);
      expect(hasSignInResume()).toBe(false);
      expect(takeSignInResume()).toBeNull();
    } finally {
      // jsdom's own storage again.
      if (own) Object.defineProperty(window, 'sessionStorage', own);
    }
  });
});
