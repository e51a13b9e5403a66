import { AUTH_API } from '@moat/contracts/auth-paths';
import type { PortalBrand } from '@moat/contracts/constants';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, type users } from '../../db/schema.ts';
import { buildTestApp, CSRF, TEST_BRIDGE_TOKEN } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, postJson } from '../../test/sign-in.ts';
import { signPortalToken } from './portal-tokens.ts';

/*
 * The portal sign-ins of SPEC §3 "Auth tokens" and §7, through the real app: tokens issued by
 * `auth:link` (through the CLI bridge, as the operator runs it) and tokens a parent portal signs
 * with PORTAL_LOGIN_SECRET. Each works once, for its own brand (and firewall), for minutes.
 */

const SECRET = 'portal secret for the tests, 32 bytes or more';
const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ clock, env: { PORTAL_LOGIN_SECRET: SECRET } });
});
afterAll(() => t.close());

async function makeUser(overrides: Partial<typeof users.$inferInsert> = {}) {
  const tenant = await buildTenant(t.db);
  return buildUser(t.db, tenant.id, {
    email: `p${Math.random().toString(16).slice(2, 10)}@${tenant.domain}`,
    ...overrides,
  });
}

/** `auth:link` as the operator runs it; the link's query parameters. */
async function cliLink(email: string, ...args: string[]) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/internal/cli',
    headers: { authorization: `Bearer ${TEST_BRIDGE_TOKEN}`, 'content-type': 'application/json' },
    payload: { argv: ['auth:link', '--email', email, ...args], cwd: '/' },
  });
  const out = res.json() as { stdout: string; stderr: string; exitCode: number };
  const url = out.stdout.trim().split('\n').at(-1) ?? '';
  return { out, query: new URLSearchParams(url.split('?')[1] ?? '') };
}

/** A multipart form as a browser's FormData sends it. */
async function multipart(fields: Record<string, string | Blob>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const request = new Request('http://moat.test/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type') ?? '',
  };
}

async function serverLogin(jar: Jar, fields: Record<string, string | Blob>) {
  const { body, contentType } = await multipart(fields);
  return jar.take(
    await t.app.inject({
      method: 'POST',
      url: AUTH_API.serverLogin,
      headers: { ...CSRF, 'content-type': contentType },
      cookies: jar.cookies,
      remoteAddress: jar.ip,
      payload: body,
    }),
  );
}

const autoLogin = (jar: Jar, body: Record<string, unknown>) => postJson(t.app, jar, AUTH_API.autoLogin, body);

const me = (jar: Jar) =>
  t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: jar.cookies, remoteAddress: jar.ip });

const portalToken = (email: string, brand: PortalBrand, extra: Record<string, unknown> = {}) =>
  signPortalToken(SECRET, {
    email,
    brand,
    exp: Math.floor(clock.now().getTime() / 1000) + 300,
    ...extra,
  });

describe('POST /api/v1/current_user/server_login (msp)', () => {
  it('signs in once with an auth:link token and answers the text success; the same token again is refused', async () => {
    const user = await makeUser();
    const { query } = await cliLink(user.email);
    const token = query.get('accessToken') ?? '';
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const jar = new Jar();
    const first = await serverLogin(jar, { token });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^text\/plain/);
    expect(first.body).toBe('success');
    const current = await me(jar);
    expect(current.statusCode).toBe(200);
    expect(current.json().email).toBe(user.email);

    const again = await serverLogin(new Jar(), { token });
    expect(again.statusCode).toBe(401);
    expect(again.json()).toMatchObject({
      code: 'invalid_token',
      message: 'This sign-in link is invalid, has expired or was already used.',
    });
    const [login] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.login'), eq(auditLog.targetId, user.id)));
    expect(login?.details).toMatchObject({ method: 'login_link' });
  });

  it('refuses an unknown token, an expired one, another brand’s and a firewall’s', async () => {
    const user = await makeUser();
    expect((await serverLogin(new Jar(), { token: 'x'.repeat(43) })).statusCode).toBe(401);

    const expired = (await cliLink(user.email)).query.get('accessToken') ?? '';
    clock.advance(10 * 60_000 + 1_000);
    expect((await serverLogin(new Jar(), { token: expired })).statusCode).toBe(401);

    const checkpoint = (await cliLink(user.email, '--brand', 'checkpoint')).query.get('firstTimeToken') ?? '';
    expect((await serverLogin(new Jar(), { token: checkpoint })).statusCode).toBe(401);
    // Refused for the wrong way in, the token is not used up: its own way in still takes it.
    expect((await autoLogin(new Jar(), { session_id: checkpoint })).statusCode).toBe(200);
  });

  it('answers a malformed form with a 4xx and signs no one in', async () => {
    const user = await makeUser();
    const token = (await cliLink(user.email)).query.get('accessToken') ?? '';
    const missing = await serverLogin(new Jar(), { other: token });
    expect(missing.statusCode).toBe(400);
    const file = await serverLogin(new Jar(), { token, upload: new Blob(['x'.repeat(100)]) });
    expect(file.statusCode).toBeGreaterThanOrEqual(400);
    expect(file.statusCode).toBeLessThan(500);
    const tooLong = await serverLogin(new Jar(), { token: 'x'.repeat(5_000) });
    expect(tooLong.statusCode).toBeGreaterThanOrEqual(400);
    expect(tooLong.statusCode).toBeLessThan(500);
    const json = await postJson(t.app, new Jar(), AUTH_API.serverLogin, { token });
    expect(json.statusCode).toBe(415);
    const { body, contentType } = await multipart({ token });
    const noCsrf = await t.app.inject({
      method: 'POST',
      url: AUTH_API.serverLogin,
      headers: { 'content-type': contentType },
      payload: body,
    });
    expect(noCsrf.statusCode).toBe(403);
    // None of these used the token up.
    expect((await serverLogin(new Jar(), { token })).statusCode).toBe(200);
  });

  it('answers a body that is no multipart form, a cut one and an oversized one with a 4xx', async () => {
    const user = await makeUser();
    const token = (await cliLink(user.email)).query.get('accessToken') ?? '';
    const raw = (contentType: string, payload: string | Buffer) =>
      t.app.inject({
        method: 'POST',
        url: AUTH_API.serverLogin,
        headers: { ...CSRF, 'content-type': contentType },
        payload,
      });
    const cases = [
      await raw('multipart/form-data', `token=${token}`),
      await raw(
        'multipart/form-data; boundary=XX',
        `--XX\r\ncontent-disposition: form-data; name="token"\r\n\r\nabc`,
      ),
      await raw('multipart/form-data; boundary=XX', 'garbage'),
      await raw(
        'multipart/form-data; boundary=XX',
        `--XX\r\ncontent-disposition: form-data; name="token"\r\n\r\n${'a'.repeat(100_000)}\r\n--XX--\r\n`,
      ),
    ];
    for (const res of cases) {
      expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, res.body).toBeLessThan(500);
    }
    expect(cases[3]?.statusCode).toBe(413);
    expect((await serverLogin(new Jar(), { token })).statusCode).toBe(200);
  });

  it('a hidden (support) user needs the tenant to allow support access', async () => {
    const user = await makeUser({ hidden: true });
    const token = (await cliLink(user.email)).query.get('accessToken') ?? '';
    const res = await serverLogin(new Jar(), { token });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tenant_approval_required');
  });
});

describe('POST /api/v1/current_user/auto_login (checkpoint, firewall)', () => {
  it('signs in once with a checkpoint token ({session_id})', async () => {
    const user = await makeUser();
    const { query } = await cliLink(user.email, '--brand', 'checkpoint');
    const token = query.get('firstTimeToken') ?? '';
    const jar = new Jar();
    const first = await autoLogin(jar, { session_id: token });
    expect(first.json()).toMatchObject({ success: true, next: 'done', email: user.email });
    expect((await me(jar)).statusCode).toBe(200);
    expect((await autoLogin(new Jar(), { session_id: token })).statusCode).toBe(401);
  });

  it('a firewall token works once, with its own serial number only', async () => {
    const user = await makeUser();
    const { query } = await cliLink(user.email, '--brand', 'firewall', '--serial', 'C0EAE4-A1');
    const token = query.get('authtoken') ?? '';
    expect(query.get('domain')).toBe('C0EAE4-A1');
    expect((await autoLogin(new Jar(), { session_id: token })).statusCode).toBe(401);
    expect((await autoLogin(new Jar(), { session_id: token, serial_number: 'C0EAE4-A2' })).statusCode).toBe(
      401,
    );
    const jar = new Jar();
    const res = await autoLogin(jar, { session_id: token, serial_number: 'C0EAE4-A1' });
    expect(res.statusCode).toBe(200);
    expect((await me(jar)).json().email).toBe(user.email);
    expect((await autoLogin(new Jar(), { session_id: token, serial_number: 'C0EAE4-A1' })).statusCode).toBe(
      401,
    );
  });

  it('refuses a malformed body with a 400', async () => {
    for (const body of [
      {},
      { session_id: '' },
      { session_id: 'a', serial_number: '' },
      { session_id: 'a', x: 1 },
    ]) {
      expect((await autoLogin(new Jar(), body)).statusCode).toBe(400);
    }
  });

  it('auth:link refuses a firewall link without a serial number and a serial number on another brand', async () => {
    const user = await makeUser();
    expect((await cliLink(user.email, '--brand', 'firewall')).out.exitCode).not.toBe(0);
    expect((await cliLink(user.email, '--serial', 'X1')).out.exitCode).not.toBe(0);
    expect((await cliLink(user.email, '--brand', 'gateway')).out.exitCode).not.toBe(0);
  });
});

describe("a parent portal's signed tokens (PORTAL_LOGIN_SECRET)", () => {
  it('sign in once, through the brand they name', async () => {
    const user = await makeUser();
    const token = portalToken(user.email, 'checkpoint');
    const jar = new Jar();
    expect((await autoLogin(jar, { session_id: token })).statusCode).toBe(200);
    expect((await me(jar)).json().email).toBe(user.email);
    expect((await autoLogin(new Jar(), { session_id: token })).statusCode).toBe(401);

    const msp = portalToken(user.email, 'msp');
    expect((await autoLogin(new Jar(), { session_id: msp })).statusCode).toBe(401);
    expect((await serverLogin(new Jar(), { token: msp })).statusCode).toBe(200);

    const firewall = portalToken(user.email, 'firewall', { serial: 'SN-7' });
    expect((await autoLogin(new Jar(), { session_id: firewall, serial_number: 'SN-8' })).statusCode).toBe(
      401,
    );
    expect((await autoLogin(new Jar(), { session_id: firewall, serial_number: 'SN-7' })).statusCode).toBe(
      200,
    );
  });

  it('refuses a forged, altered, long-lived, expired or unknown-user token', async () => {
    const user = await makeUser();
    const now = Math.floor(clock.now().getTime() / 1000);
    const forged = signPortalToken('another secret, also 32 bytes long or more', {
      email: user.email,
      brand: 'checkpoint',
      exp: now + 300,
    });
    const good = portalToken(user.email, 'checkpoint');
    const [prefix, payload, signature] = good.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString());
    const otherUser = Buffer.from(JSON.stringify({ ...claims, email: 'admin@elsewhere.test' })).toString(
      'base64url',
    );
    // The same signature bytes in another spelling (base64url's spare low bits): not the same token.
    const last = signature?.at(-1) ?? 'A';
    const respelled = `${signature?.slice(0, -1)}${String.fromCharCode(last.charCodeAt(0) ^ 1)}`;
    const refused = [
      forged,
      `${prefix}.${otherUser}.${signature}`,
      `${prefix}.${payload}.${respelled}`,
      `${prefix}.${payload}`,
      portalToken(user.email, 'checkpoint', { exp: now + 3_600 }),
      portalToken(user.email, 'checkpoint', { exp: now - 1 }),
      portalToken('nobody@nowhere.test', 'checkpoint'),
      portalToken(user.email, 'firewall'),
    ];
    for (const token of refused) {
      expect((await autoLogin(new Jar(), { session_id: token })).statusCode, token).toBe(401);
    }
    // None of those used up the good token.
    expect((await autoLogin(new Jar(), { session_id: good })).statusCode).toBe(200);
  });

  it('are refused when no portal secret is configured', async () => {
    const other = await buildTestApp({ database: t.database, clock });
    try {
      const user = await makeUser();
      const res = await other.app.inject({
        method: 'POST',
        url: AUTH_API.autoLogin,
        headers: CSRF,
        payload: { session_id: portalToken(user.email, 'checkpoint') },
      });
      expect(res.statusCode).toBe(401);
    } finally {
      await other.app.close();
    }
  });
});
