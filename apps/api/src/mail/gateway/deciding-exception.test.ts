import { describe, expect, it } from 'vitest';
import type { ExceptionMatch } from './gateway-policy.repo.ts';
import { decidingException } from './policy.ts';

const now = new Date('2026-11-23T12:00:00Z');
const entry = (over: Partial<ExceptionMatch>): ExceptionMatch =>
  ({
    list: 'allow',
    kind: 'sender',
    scope: 'all',
    value: '',
    comment: '',
    createdBy: 'admin',
    expiresAt: null,
    ...over,
  }) as ExceptionMatch;
const subject = {
  fromSender: 'attacker@evil.example',
  envelopeSender: 'attacker@evil.example',
  clientIp: '40.92.1.2',
  urls: ['https://sharepoint.example/', 'https://evil.example/login'],
  hashes: ['a'.repeat(64)],
  authenticated: true,
  now,
};

describe('decidingException', () => {
  it('lets no allowed link, file or IP range decide a message an attacker wrote around it', () => {
    const entries = [
      entry({ kind: 'url', value: 'https://sharepoint.example/' }),
      entry({ kind: 'sha256', value: 'a'.repeat(64) }),
      entry({ kind: 'ip_range', value: '40.92.0.0/15' }),
    ];
    expect(decidingException(entries, subject)).toBeNull();
  });

  it('still blocks by a link, a file or an IP range', () => {
    const block = entry({ list: 'block', kind: 'url', value: 'https://evil.example/login' });
    expect(decidingException([block], subject)).toEqual({ list: 'block', entry: block });
  });

  it('counts an allowed sender only when its domain is proven', () => {
    const allow = entry({ kind: 'domain', value: 'evil.example' });
    expect(decidingException([allow], subject)).toEqual({ list: 'allow', entry: allow });
    expect(decidingException([allow], { ...subject, authenticated: false })).toBeNull();
  });
});
