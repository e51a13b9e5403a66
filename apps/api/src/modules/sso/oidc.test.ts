import { SSO_API } from '@moat/contracts/sso';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, ssoRequests } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { startOidcProvider, TEST_OIDC_CLIENT, type TestOidcProvider } from '../../test/oidc-provider.ts';
import { Jar, postJson, tenantWithAdminSignedIn } from '../../test/sign-in.ts';

/*
 * Microsoft sign-in (OpenID Connect, issue 15) against a real provider started here
 * (`oidc-provider`): the code flow with PKCE, state and nonce, signed ID tokens. A user signs in
 * once; a replayed callback, an unknown state, a nonce that does not match, another browser, a
 * domain the tenant did not allow and a provider error are refused and audited.
 */
const PASSWORD = 'correct horse battery';
const PUBLIC_URL = 'http://moat.test:8080';
const CALLBACK = `${PUBLIC_URL}${SSO_API.oidcCallback('microsoft')}`;
let t: Awaited<ReturnType<typeof buildTestApp>>;
let op: TestOidcProvider;
let domain: string;
let admin: Jar;

beforeAll(async () => {
  op = await startOidcProvider({ redirectUris: [CALLBACK] });
  // The provider is on this machine: a deployment of one's own (NEXT_HOP_NETWORKS=any) may call it.
  t = await buildTestApp({ env: { PUBLIC_URL, NEXT_HOP_NETWORKS: 'any' } });
  ({ domain, admin } = await tenantWithAdminSignedIn(t.app, t.db, PASSWORD));
  const saved = await postJson(
    t.app,
    admin,
    SSO_API.settings,
    {
      microsoft: {
        enabled: true,
        issuer: op.issuer,
        client_id: TEST_OIDC_CLIENT.id,
        client_secret: TEST_OIDC_CLIENT.secret,
      },
    },
    'PUT',
  );
  expect(saved.statusCode, saved.body).toBe(200);
  expect(saved.json().microsoft).toMatchObject({ enabled: true, secret_set: true, redirect_url: CALLBACK });
  expect(saved.body).not.toContain(TEST_OIDC_CLIENT.secret);
});
afterAll(async () => {
  await Promise.all([t?.close(), op?.close()]);
});

async function start(email: string, browser: Jar): Promise<string> {
  const res = await postJson(t.app, browser, SSO_API.oidcStart('microsoft'), { email });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().url;
}

/** The browser at the provider: follow its redirects (with its cookies) until it sends us back. */
async function atProvider(url: string, email: string): Promise<URL> {
  op.signInAs(email);
  const cookies = new Map<string, string>();
  let next = url;
  for (let hop = 0; hop < 10; hop += 1) {
    if (next.startsWith(PUBLIC_URL)) return new URL(next);
    const res = await fetch(next, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      cookies.set(name.trim(), value);
    }
    const location = res.headers.get('location');
    if (!location) throw new Error(`the provider stopped at ${next}: ${res.status} ${await res.text()}`);
    next = new URL(location, next).href;
  }
  throw new Error('too many redirects at the provider');
}

/** The provider's redirect arrives at Moat's callback. */
const callback = (url: URL) => t.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
const popupQuery = (res: { headers: Record<string, unknown> }) =>
  new URLSearchParams(String(res.headers.location).split('?')[1] ?? '');

async function lastFailure(): Promise<string> {
  const rows = await t.db
    .select({ details: auditLog.details })
    .from(auditLog)
    .where(and(eq(auditLog.action, 'auth.sso_failed')))
    .orderBy(auditLog.id);
  return String((rows.at(-1)?.details as { reason?: string } | undefined)?.reason);
}

describe('Microsoft sign-in (OpenID Connect)', () => {
  it('signs a user in once with the code flow and PKCE; the same callback again is refused', async () => {
    const browser = new Jar();
    const url = await start(`ana@${domain}`, browser);
    const authorize = new URL(url);
    expect(authorize.origin).toBe(op.issuer);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('nonce')).toBeTruthy();
    const back = await atProvider(url, `ana@${domain}`);
    expect(back.href.startsWith(CALLBACK)).toBe(true);
    const res = await callback(back);
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toMatch(/^\/#\/auth\/office365\?samlSuccess=true&ssoToken=/);
    const token = popupQuery(res).get('ssoToken') ?? '';
    expect((await postJson(t.app, new Jar(), SSO_API.complete, { token })).statusCode).toBe(401);
    const done = await postJson(t.app, browser, SSO_API.complete, { token });
    expect(done.json()).toMatchObject({ next: 'done', email: `ana@${domain}` });
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: browser.cookies });
    expect(me.json().email).toBe(`ana@${domain}`);

    const replay = await callback(back);
    expect(popupQuery(replay).get('ssoError')).toBe('microsoft');
    expect(await lastFailure()).toMatch(/state is not valid/);
  });

  it('refuses a nonce that does not match, a domain not allowed, a provider error and an unknown user', async () => {
    // The nonce Moat expects is changed under the request: the ID token's no longer matches.
    let url = await start(`ana@${domain}`, new Jar());
    const state = new URL(url).searchParams.get('state') ?? '';
    const [request] = await t.db
      .select()
      .from(ssoRequests)
      .where(eq(ssoRequests.id, `oidc:${state}`));
    const kept = JSON.parse(request?.value ?? '{}');
    await t.db
      .update(ssoRequests)
      .set({ value: JSON.stringify({ ...kept, nonce: 'not-the-nonce' }) })
      .where(eq(ssoRequests.id, `oidc:${state}`));
    let res = await callback(await atProvider(url, `ana@${domain}`));
    expect(popupQuery(res).get('ssoError')).toBe('microsoft');
    expect(await lastFailure()).toMatch(/nonce/i);

    await postJson(
      t.app,
      admin,
      SSO_API.settings,
      { microsoft: { allowed_domains: ['elsewhere.test'] } },
      'PUT',
    );
    url = await start(`ana@${domain}`, new Jar());
    res = await callback(await atProvider(url, `ana@${domain}`));
    expect(popupQuery(res).get('ssoError')).toBe('microsoft');
    expect(await lastFailure()).toMatch(/allowed domains/);
    await postJson(t.app, admin, SSO_API.settings, { microsoft: { allowed_domains: [] } }, 'PUT');

    url = await start(`ana@${domain}`, new Jar());
    const denied = new URL(CALLBACK);
    denied.searchParams.set('state', new URL(url).searchParams.get('state') ?? '');
    denied.searchParams.set('error', 'access_denied');
    res = await callback(denied);
    expect(popupQuery(res).get('ssoError')).toBe('microsoft');
    expect(await lastFailure()).toMatch(/access_denied/);

    url = await start(`ana@${domain}`, new Jar());
    res = await callback(await atProvider(url, `nobody@${domain}`));
    expect(popupQuery(res).get('ssoError')).toBe('microsoft');
    expect(await lastFailure()).toMatch(/just-in-time/);
  });

  it('settings: the secret is never shown, turning on needs a client, the issuer test reads discovery', async () => {
    const get = await t.app.inject({ method: 'GET', url: SSO_API.settings, cookies: admin.cookies });
    expect(get.body).not.toContain(TEST_OIDC_CLIENT.secret);
    const noClient = await postJson(t.app, admin, SSO_API.settings, { google: { enabled: true } }, 'PUT');
    expect(noClient.statusCode).toBe(400);
    const test = await postJson(t.app, admin, SSO_API.oidcTest, { issuer: op.issuer });
    expect(test.json()).toMatchObject({ issuer: op.issuer, authorization_endpoint: `${op.issuer}/auth` });
    const metadata = await postJson(t.app, admin, SSO_API.oidcTest, {
      issuer: 'http://169.254.169.254/latest',
    });
    expect(metadata.statusCode).toBe(400);
  });
});
