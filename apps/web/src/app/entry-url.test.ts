import { describe, expect, it } from 'vitest';
import { hashUrlForLegacyEntry } from './entry-url';

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
