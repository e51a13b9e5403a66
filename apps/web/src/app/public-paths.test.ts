import { describe, expect, it } from 'vitest';
import { bundleOf, hashLocation, isPublicPage, publicPageHashOfLegacy } from './public-paths';

describe('public-paths: which bundle a hash location needs', () => {
  it.each([
    ['#/email-actions/restore-email?type=t&msg=m', true],
    // Entry parameters the console acts on first: a sign-in token, debug, route.
    ['#/email-actions/restore-email?type=t&msg=m&accessToken=x', false],
    ['#/email-actions/action?type=a&id=b&debug=1', false],
    ['#/email-actions/action?type=a&id=b&route=Lw', false],
    ['#/email-actions/action/?type=a&id=b', false],
    ['#/email-actions/restore-original?type=t&msg=m', true],
    ['#/email-actions/restore-attachment', true],
    ['#/email-actions/action?type=a&id=b', true],
    ['#/email-actions', false],
    ['#/email-actions/restore-email/extra', false],
    ['#/error/410', false],
    ['#/auth/login', false],
    ['', false],
  ])('%s → public pages: %s', (hash, expected) => {
    expect(isPublicPage(hash)).toBe(expected);
  });

  it('reads the path and the query of the hash', () => {
    const { pathname, search } = hashLocation('#/email-actions/action?type=a&id=b%20c');
    expect(pathname).toBe('/email-actions/action');
    expect(Object.fromEntries(search)).toEqual({ type: 'a', id: 'b c' });
    expect(hashLocation('').pathname).toBe('/');
  });

  it.each([
    ['#/email_restore.html?type=t&msg=m', '#/email-actions/restore-email?type=t&msg=m'],
    ['#/restore_original.html?type=t&msg=m', '#/email-actions/restore-original?type=t&msg=m'],
    ['#/email_action.html?type=a&id=b', '#/email-actions/action?type=a&id=b'],
    ['#/email_action.html', '#/email-actions/action'],
    ['#/!/dashboard', null],
    ['#/email-actions/action?type=a', null],
  ])('the legacy hash %s is the public page %s', (hash, expected) => {
    expect(publicPageHashOfLegacy(hash)).toBe(expected);
  });

  it.each([
    ['#/auth/login', false, 'public'],
    ['#/auth/login?returnUrl=%2Fsettings', false, 'public'],
    // A sign-in the console goes on with, the console's own hand-back, entry parameters.
    ['#/auth/login', true, 'console'],
    ['#/auth/login?signIn=console', false, 'console'],
    ['#/auth/login?debug=1', false, 'console'],
    ['#/auth/login?token=abc', false, 'console'],
    ['#/auth/forgot-password', false, 'console'],
    ['#/auth/login/', false, 'console'],
    ['#/', false, 'console'],
    ['#/dashboard', true, 'console'],
    ['#/email-actions/action?type=a&id=b', true, 'public'],
  ] as const)('%s (a sign-in waiting: %s) is served by the %s bundle', (hash, waiting, bundle) => {
    expect(bundleOf(hash, waiting)).toBe(bundle);
  });
});
