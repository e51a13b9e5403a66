import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../test/clock.ts';
import { cachingResolver, DNS_CACHE_TTL_MS } from './dns-cache.ts';

/** A resolver that counts the questions it is asked; `fail` decides the error for a name. */
function countingResolver(fail: (name: string) => string | null = () => null) {
  const asked: string[] = [];
  return {
    asked,
    resolve: async (name: string, rrtype: string) => {
      asked.push(`${rrtype} ${name}`);
      await new Promise((r) => setTimeout(r, 5));
      const code = fail(name);
      if (code) throw Object.assign(new Error(code), { code });
      return [[`v=spf1 -all ${asked.length}`]];
    },
  };
}

describe('the gateway DNS cache', () => {
  it('asks once for concurrent and repeated questions, and again once the answer is a minute old', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const upstream = countingResolver();
    const resolve = cachingResolver({ resolver: upstream.resolve, clock });
    const [a, b] = await Promise.all([resolve('Outside.test', 'TXT'), resolve('outside.test', 'TXT')]);
    expect(a).toEqual(b);
    expect(await resolve('outside.test', 'TXT')).toEqual(a);
    await resolve('outside.test', 'MX');
    expect(upstream.asked).toEqual(['TXT Outside.test', 'MX outside.test']);
    clock.advance(DNS_CACHE_TTL_MS + 1);
    expect(await resolve('outside.test', 'TXT')).not.toEqual(a);
    expect(upstream.asked).toHaveLength(3);
  });

  it('reuses "no such name" but asks again after a timeout', async () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'));
    const upstream = countingResolver((name) => (name === 'gone.test' ? 'ENOTFOUND' : 'ETIMEOUT'));
    const resolve = cachingResolver({ resolver: upstream.resolve, clock });
    await expect(resolve('gone.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolve('gone.test', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    await expect(resolve('slow.test', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    await expect(resolve('slow.test', 'TXT')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(upstream.asked).toEqual(['TXT gone.test', 'TXT slow.test', 'TXT slow.test']);
  });
});
