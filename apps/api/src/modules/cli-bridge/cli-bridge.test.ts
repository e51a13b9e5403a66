import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, TEST_BRIDGE_TOKEN } from '../../test/app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const call = (headers: Record<string, string>, remoteAddress = '127.0.0.1') =>
  t.app.inject({
    method: 'POST',
    url: '/internal/cli',
    headers: { 'content-type': 'application/json', ...headers },
    remoteAddress,
    payload: { argv: ['tenant:create', '--name', 'Bridge', '--domain', 'bridge.test'], cwd: '/' },
  });

describe('POST /internal/cli', () => {
  it('runs a CLI command for a loopback caller holding the control secret', async () => {
    const res = await call({ authorization: `Bearer ${TEST_BRIDGE_TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ exitCode: 0, stderr: '' });
    expect(res.json().stdout).toContain('Created tenant "Bridge"');
  });

  it('refuses a wrong or missing secret', async () => {
    expect((await call({ authorization: 'Bearer wrong' })).statusCode).toBe(403);
    expect((await call({})).statusCode).toBe(403);
  });

  it('refuses a request relayed by a proxy, even from loopback with the secret', async () => {
    const res = await call({
      authorization: `Bearer ${TEST_BRIDGE_TOKEN}`,
      'x-forwarded-for': '203.0.113.9',
    });
    expect(res.statusCode).toBe(403);
  });

  it('refuses a caller that is not on loopback, even with the secret', async () => {
    const res = await call({ authorization: `Bearer ${TEST_BRIDGE_TOKEN}` }, '192.0.2.10');
    expect(res.statusCode).toBe(403);
  });
});
