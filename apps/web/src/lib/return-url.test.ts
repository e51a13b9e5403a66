import { describe, expect, it } from 'vitest';
import { loginPath, returnTarget, safeReturnPath } from './return-url';

describe('loginPath', () => {
  it('passes the current path as an encoded returnUrl', () => {
    expect(loginPath('/security-events?range=week')).toBe(
      '/auth/login?returnUrl=%2Fsecurity-events%3Frange%3Dweek',
    );
  });

  it('passes no returnUrl for password-reset URLs or the root', () => {
    expect(loginPath('/auth/reset-password?token=secret')).toBe('/auth/login');
    expect(loginPath('/')).toBe('/auth/login');
    expect(loginPath()).toBe('/auth/login');
  });
});

describe('safeReturnPath', () => {
  it('accepts paths inside the app', () => {
    expect(safeReturnPath('/dashboard')).toBe('/dashboard');
    expect(safeReturnPath('/security-events?range=week')).toBe('/security-events?range=week');
  });

  it.each([
    null,
    '',
    'dashboard',
    '//evil.example',
    '/\\evil.example',
    'https://evil.example',
    '/auth/login',
    '/auth',
  ])('refuses %s', (value) => {
    expect(safeReturnPath(value)).toBeNull();
  });
});

describe('returnTarget', () => {
  it('keeps an app path as a route', () => {
    expect(returnTarget('/analytics/dashboard?x=1')).toEqual({
      kind: 'route',
      path: '/analytics/dashboard?x=1',
    });
  });

  it("needs a full location change for a URL containing '#', on this origin only", () => {
    expect(returnTarget('/legacy/index.html#/policy')).toEqual({
      kind: 'document',
      href: '/legacy/index.html#/policy',
    });
    expect(returnTarget('https://evil.example/#/x')).toBeNull();
    expect(returnTarget('//evil.example/#/x')).toBeNull();
  });

  it('has no target for nothing or a sign-in page', () => {
    expect(returnTarget(null)).toBeNull();
    expect(returnTarget('/auth/login')).toBeNull();
  });
});

describe('return URLs with control characters', () => {
  it.each(['/\t/evil.example/#', '/\n/evil.example', '/\r\n/evil.example/x', '/%09/ok', '/\u0000x'])(
    'refuses %j or keeps it inside this origin',
    (value) => {
      const path = safeReturnPath(value);
      if (path !== null) expect(new URL(path, 'https://moat.invalid').origin).toBe('https://moat.invalid');
      const target = returnTarget(value);
      if (target?.kind === 'document')
        expect(new URL(target.href, 'https://moat.invalid').origin).toBe('https://moat.invalid');
    },
  );

  it('refuses the tab trick a browser would turn into another origin', () => {
    expect(safeReturnPath('/\t/evil.example/#')).toBeNull();
    expect(returnTarget('/\t/evil.example/#')).toBeNull();
  });
});
