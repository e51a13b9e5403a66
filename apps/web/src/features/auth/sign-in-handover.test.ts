import { afterEach, describe, expect, it } from 'vitest';
import { hasSignInResume, saveSignInResume, takeSignInResume } from './sign-in-handover';

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
});
