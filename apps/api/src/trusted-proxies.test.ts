import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { trustedProxies } from './app.ts';

/** The client address Fastify reports behind the configured proxies (TRUST_PROXY). */
async function clientIp(setting: boolean | string[], peer: string, forwardedFor?: string) {
  const app = Fastify({ trustProxy: trustedProxies(setting) });
  app.get('/ip', async (request) => ({ ip: request.ip }));
  const res = await app.inject({
    url: '/ip',
    remoteAddress: peer,
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  });
  await app.close();
  return res.json().ip;
}

describe('TRUST_PROXY', () => {
  it('takes the forwarded address only from a listed proxy, as plain, IPv4-mapped or range', async () => {
    expect(await clientIp(['127.0.0.1'], '127.0.0.1', '10.1.2.3')).toBe('10.1.2.3');
    expect(await clientIp(['127.0.0.1'], '::ffff:127.0.0.1', '10.1.2.3')).toBe('10.1.2.3');
    expect(await clientIp(['127.0.0.1'], '192.0.2.9', '10.1.2.3')).toBe('192.0.2.9');
    // Only trusted hops are skipped: a client cannot claim an address behind a proxy it names.
    expect(await clientIp(['127.0.0.1'], '127.0.0.1', '203.0.113.5, 10.1.2.3')).toBe('10.1.2.3');
    expect(await clientIp(['127.0.0.1', '10.1.2.3'], '127.0.0.1', '203.0.113.5, 10.1.2.3')).toBe(
      '203.0.113.5',
    );
    expect(await clientIp(['127.0.0.0/8'], '127.0.0.7', '10.1.2.3')).toBe('10.1.2.3');
    expect(await clientIp(['::1'], '::1', '2001:db8::1')).toBe('2001:db8::1');
    expect(await clientIp(false, '127.0.0.1', '10.1.2.3')).toBe('127.0.0.1');
  });
});
