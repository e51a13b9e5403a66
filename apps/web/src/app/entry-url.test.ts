import { describe, expect, it } from 'vitest';
import { decodeRouteTarget, hashUrlForLegacyEntry } from './entry-location';

describe('hashUrlForLegacyEntry', () => {
  it('moves a real legacy path into the hash route, keeping the query', () => {
    expect(hashUrlForLegacyEntry({ pathname: '/email_action.html', search: '?type=a&id=b', hash: '' })).toBe(
      '/#/email-actions/action?type=a&id=b',
    );
  });

  it('leaves hash routes, the root and unknown paths alone', () => {
    expect(hashUrlForLegacyEntry({ pathname: '/', search: '', hash: '#/auth/login' })).toBeNull();
    expect(hashUrlForLegacyEntry({ pathname: '/', search: '?x=1', hash: '' })).toBeNull();
    expect(hashUrlForLegacyEntry({ pathname: '/email_action.html', search: '', hash: '#/x' })).toBeNull();
    expect(hashUrlForLegacyEntry({ pathname: '/index.html', search: '', hash: '' })).toBeNull();
  });
});

const b64 = (path: string) => btoa(encodeURIComponent(path));

describe('decodeRouteTarget (SPEC §2.3 route parameter)', () => {
  it('decodes a base64-encoded, URL-encoded path', () => {
    expect(decodeRouteTarget(b64('/security-events?range=week'))).toBe('/security-events?range=week');
  });

  it("strips a leading '/#/'", () => {
    expect(decodeRouteTarget(b64('/#/policy'))).toBe('/policy');
  });

  it("turns '/#!/authorize-error' into the error 403 page", () => {
    expect(decodeRouteTarget(b64('/#!/authorize-error'))).toBe('/error/403');
    expect(decodeRouteTarget(b64('/#!/authorize-error/x'))).toBe('/error/403/x');
  });

  it.each([
    '//evil.example',
    '/#//evil.example',
    'https://evil.example/x',
    '/\\evil.example',
    '/\t/evil.example',
    'javascript:alert(1)',
    '%2F%2Fevil.example',
    'evil.example',
  ])('refuses %j, which is not a path inside the app', (path) => {
    expect(decodeRouteTarget(b64(path))).toBeNull();
    expect(decodeRouteTarget(btoa(path.replace(/[^\x20-\x7e]/g, '')))).toBeNull();
  });

  it('refuses what is not base64', () => {
    expect(decodeRouteTarget('***')).toBeNull();
    expect(decodeRouteTarget('')).toBeNull();
  });
});

describe('hashUrlForLegacyEntry with a route parameter or carried parameters', () => {
  it('opens the hash route a route parameter names, keeping other parameters', () => {
    expect(
      hashUrlForLegacyEntry({ pathname: '/', search: `?route=${b64('/#/policy')}&accessToken=T`, hash: '' }),
    ).toBe('/#/policy?accessToken=T');
  });

  it('drops a route parameter that leaves the app and stays on the current route', () => {
    expect(
      hashUrlForLegacyEntry({
        pathname: '/',
        search: `?route=${b64('//evil.example')}`,
        hash: '#/auth/login',
      }),
    ).toBe('/#/auth/login');
  });

  it('moves sign-in tokens and debug from the real query into the hash route', () => {
    expect(hashUrlForLegacyEntry({ pathname: '/', search: '?debug=1', hash: '#/dashboard' })).toBe(
      '/#/dashboard?debug=1',
    );
    expect(hashUrlForLegacyEntry({ pathname: '/', search: '?accessToken=T', hash: '' })).toBe(
      '/#/?accessToken=T',
    );
  });
});
