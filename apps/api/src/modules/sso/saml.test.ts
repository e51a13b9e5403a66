import { inflateRawSync } from 'node:zlib';
import { API } from '@moat/contracts/api-paths';
import { PASSWORDS_OFF_MESSAGE } from '@moat/contracts/auth-paths';
import { SSO_API } from '@moat/contracts/sso';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, tenants, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { type ResponseValues, RSA_SHA1, startSamlIdp, type TestSamlIdp } from '../../test/saml-idp.ts';
import { Jar, login, postJson, tenantWithAdminSignedIn } from '../../test/sign-in.ts';
import { weakAlgorithmsIn } from './saml.service.ts';

/*
 * SAML sign-in (issue 15) against a real identity provider started here (samlify's IdP role with
 * its own key): the admin configures it from its metadata, a user signs in once; every answer an
 * attacker could bend (unsigned, another key, wrong audience, issuer, recipient, destination,
 * expired, replayed, not ours) is refused and audited.
 */

const PASSWORD = 'correct horse battery';
let t: Awaited<ReturnType<typeof buildTestApp>>;
let idp: TestSamlIdp;
let otherIdp: TestSamlIdp;
let tenantId: string;
let domain: string;
let admin: Jar;
let spXml: string;

beforeAll(async () => {
  [t, idp, otherIdp] = await Promise.all([buildTestApp(), startSamlIdp(), startSamlIdp()]);
  const set = await tenantWithAdminSignedIn(t.app, t.db, PASSWORD);
  ({ tenantId, domain, admin } = set);
  expect(set.signedIn.json()).toMatchObject({ next: 'done' });
  const saved = await postJson(
    t.app,
    admin,
    SSO_API.settings,
    { saml: { enabled: true, metadata_xml: idp.metadataXml } },
    'PUT',
  );
  expect(saved.statusCode, saved.body).toBe(200);
  spXml = (await t.app.inject({ method: 'GET', url: SSO_API.samlMetadata(tenantId) })).body;
});
afterAll(async () => {
  await Promise.all([t?.close(), idp?.close(), otherIdp?.close()]);
});

/** The popup's start: the IdP URL with Moat's AuthnRequest; `browser` keeps the start's cookie. */
async function start(email: string, browser = new Jar()): Promise<string> {
  const res = await postJson(t.app, browser, SSO_API.samlStart, { email });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().url;
}

/** The IdP posts its answer across sites: a form, without Moat's custom header. */
const acs = (samlResponse: string) =>
  t.app.inject({
    method: 'POST',
    url: SSO_API.samlAcs(tenantId),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' },
    payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: '' }).toString(),
  });

const popupQuery = (res: { headers: Record<string, unknown> }) =>
  new URLSearchParams(String(res.headers.location).split('?')[1] ?? '');

const refusedWith = async (samlResponse: string) => {
  const res = await acs(samlResponse);
  expect(res.statusCode).toBe(303);
  expect(popupQuery(res).get('ssoError')).toBe('saml');
  expect(popupQuery(res).get('ssoToken')).toBeNull();
};

async function failures(): Promise<string[]> {
  const rows = await t.db
    .select({ details: auditLog.details })
    .from(auditLog)
    .where(eq(auditLog.action, 'auth.sso_failed'))
    .orderBy(auditLog.id);
  return rows.map((r) => String((r.details as { reason?: string }).reason));
}

const lastReason = async () => (await failures()).at(-1) ?? '';

/** The id of the AuthnRequest in an IdP URL (HTTP-Redirect: deflated, base64). */
const requestIdOf = (url: string) =>
  /ID="([^"]+)"/.exec(
    inflateRawSync(Buffer.from(new URL(url).searchParams.get('SAMLRequest') ?? '', 'base64')).toString(),
  )?.[1] ?? '';

describe('Settings → Sign-in', () => {
  it('shows the values to enter at the IdP and what Moat read from its metadata', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: SSO_API.settings,
      cookies: admin.cookies,
      remoteAddress: admin.ip,
    });
    const body = res.json();
    expect(body.saml).toMatchObject({
      enabled: true,
      idp: { entity_id: `${idp.url}/metadata`, sso_url: `${idp.url}/sso` },
      sp: {
        acs_url: expect.stringContaining(`/api/v1/auth/saml/acs/${tenantId}`),
        entity_id: expect.stringContaining(`/api/v1/auth/saml/metadata/${tenantId}`),
      },
    });
    expect(body.saml.idp.certificates[0].sha256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(spXml).toContain(body.saml.sp.acs_url);
    expect(spXml).toContain('WantAssertionsSigned="true"');
    const flags = await t.app.inject({ method: 'GET', url: API.uiFeaturesPublic });
    expect(flags.json().samlAuth).toBe(true);
  });

  it('refuses unusable metadata, SAML on without an IdP, passwords off without SAML, and non-admins', async () => {
    const bad = await postJson(t.app, admin, SSO_API.samlTest, { metadata_xml: '<nope' });
    expect(bad.statusCode).toBe(400);
    const dtd = await postJson(t.app, admin, SSO_API.samlTest, {
      metadata_xml: `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${idp.metadataXml}`,
    });
    expect(dtd.statusCode).toBe(400);
    expect(dtd.json().message).toContain('DTD');
    const test = await postJson(t.app, admin, SSO_API.samlTest, { metadata_xml: idp.metadataXml });
    expect(test.json()).toMatchObject({ entity_id: `${idp.url}/metadata` });

    const other = await buildTenant(t.db);
    await buildUser(t.db, other.id, {
      email: `boss@${other.domain}`,
      role: 'admin',
      passwordHash: await hashPassword(PASSWORD),
    });
    const jar = new Jar();
    await login(t.app, jar, `boss@${other.domain}`, PASSWORD);
    const noIdp = await postJson(t.app, jar, SSO_API.settings, { saml: { enabled: true } }, 'PUT');
    expect(noIdp.statusCode).toBe(400);
    const noPasswords = await postJson(t.app, jar, SSO_API.settings, { passwords_allowed: false }, 'PUT');
    expect(noPasswords.statusCode).toBe(400);

    const user = new Jar();
    await login(t.app, user, `ana@${domain}`, PASSWORD);
    const get = await t.app.inject({ method: 'GET', url: SSO_API.settings, cookies: user.cookies });
    expect(get.statusCode).toBe(403);
  });
});

describe('Settings → Sign-in: SHA-1', () => {
  const ALG = 'urn:oasis:names:tc:SAML:metadata:algsupport';
  /** The IdP's metadata saying which algorithms it signs with (the algorithm-support profile). */
  const announcing = (...algorithms: string[]) =>
    idp.metadataXml.replace(
      /(<IDPSSODescriptor[^>]*>)/,
      `$1<Extensions>${algorithms
        .map((a) => `<alg:SigningMethod xmlns:alg="${ALG}" Algorithm="${a}"/>`)
        .join('')}</Extensions>`,
    );
  /** The metadata itself signed with RSA-SHA1 (Moat reads, not checks, that signature). */
  const signedWithSha1 = () =>
    idp.metadataXml.replace(
      /(<EntityDescriptor[^>]*>)/,
      `$1<ds:Signature><ds:SignedInfo><ds:CanonicalizationMethod Algorithm="http://www.w3.org/2001/10/xml-exc-c14n#"/><ds:SignatureMethod Algorithm="${RSA_SHA1}"/><ds:Reference URI=""><ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/><ds:DigestValue>AA==</ds:DigestValue></ds:Reference></ds:SignedInfo><ds:SignatureValue>AA==</ds:SignatureValue></ds:Signature>`,
    );

  it('the test button refuses an IdP that signs with SHA-1 only, and says what to change', async () => {
    for (const metadata of [announcing(RSA_SHA1), signedWithSha1()]) {
      const res = await postJson(t.app, admin, SSO_API.samlTest, { metadata_xml: metadata });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/SHA-1/);
      expect(res.json().message).toMatch(/RSA-SHA256/);
    }
    // An IdP that can sign with SHA-256 as well is fine: Moat asks for it (and accepts only it).
    const both = announcing(RSA_SHA1, 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
    expect((await postJson(t.app, admin, SSO_API.samlTest, { metadata_xml: both })).statusCode).toBe(200);
  });

  it('saving such metadata is refused on its field, and the IdP in use stays', async () => {
    const res = await postJson(
      t.app,
      admin,
      SSO_API.settings,
      { saml: { metadata_xml: announcing(RSA_SHA1) } },
      'PUT',
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0]).toMatchObject({ field: 'saml.metadata_xml' });
    expect(res.json().details[0].message).toMatch(/SHA-1/);
  });
});

describe('SAML sign-in', () => {
  it('refuses an answer signed with RSA-SHA1, and tells the tenant why in its audit log', async () => {
    const email = `ana@${domain}`;
    const browser = new Jar();
    const response = await idp.responseFor(spXml, await start(email, browser), email, undefined, {
      signedWith: RSA_SHA1,
    });
    expect(weakAlgorithmsIn(Buffer.from(response, 'base64').toString('utf8'))).toContain(RSA_SHA1);
    const res = await acs(response);
    expect(res.statusCode).toBe(303);
    expect(popupQuery(res).get('ssoError')).toBe('saml');
    expect(popupQuery(res).get('ssoToken')).toBeNull();
    const [row] = await t.db
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.sso_failed'), eq(auditLog.tenantId, tenantId)))
      .orderBy(desc(auditLog.id))
      .limit(1);
    const reason = String((row?.details as { reason?: string } | undefined)?.reason);
    expect(reason).toMatch(/SHA-1/);
    expect(reason).toContain(RSA_SHA1);
    expect(reason).toMatch(/RSA-SHA256/);
  });

  it('reads every SHA-1 signature and digest algorithm of a response, wherever it is', () => {
    const doc = (signature: string, digest: string) =>
      `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol"><saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"><Signature xmlns="http://www.w3.org/2000/09/xmldsig#"><SignedInfo><SignatureMethod Algorithm="${signature}"/><Reference><DigestMethod Algorithm="${digest}"/></Reference></SignedInfo></Signature></saml:Assertion></samlp:Response>`;
    const rsa256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
    const sha256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
    const sha1 = 'http://www.w3.org/2000/09/xmldsig#sha1';
    expect(weakAlgorithmsIn(doc(rsa256, sha256))).toEqual([]);
    expect(weakAlgorithmsIn(doc(rsa256, sha1))).toEqual([sha1]);
    expect(weakAlgorithmsIn(doc(RSA_SHA1, sha256))).toEqual([RSA_SHA1]);
    expect(weakAlgorithmsIn(doc('http://www.w3.org/2000/09/xmldsig#hmac-sha1', sha256))).toHaveLength(1);
  });

  it('signs a user in through the IdP once; the same answer again is refused', async () => {
    const jar = new Jar();
    const url = await start(`ana@${domain}`, jar);
    expect(url.startsWith(`${idp.url}/sso?SAMLRequest=`)).toBe(true);
    const response = await idp.responseFor(spXml, url, `ana@${domain}`);
    const res = await acs(response);
    expect(res.statusCode).toBe(303);
    expect(String(res.headers.location)).toMatch(/^\/#\/auth\/saml\/login\?samlSuccess=true&ssoToken=/);
    const token = popupQuery(res).get('ssoToken') ?? '';

    // Login CSRF: another browser (an attacker's victim) cannot use the answer; it is not used up.
    expect((await postJson(t.app, new Jar(), SSO_API.complete, { token })).statusCode).toBe(401);
    const done = await postJson(t.app, jar, SSO_API.complete, { token });
    expect(done.json()).toMatchObject({ success: true, next: 'done', email: `ana@${domain}` });
    const me = await t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: jar.cookies });
    expect(me.json().email).toBe(`ana@${domain}`);
    expect((await postJson(t.app, new Jar(), SSO_API.complete, { token })).statusCode).toBe(401);

    await refusedWith(response);
  });

  it('refuses every bent, forged or foreign answer, and says why in the audit log', async () => {
    const email = `ana@${domain}`;
    const bend = (values: Partial<ResponseValues>) => (url: string) =>
      idp.responseFor(spXml, url, email, () => values);
    const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
    const cases: Array<[string, (url: string) => Promise<string>, RegExp]> = [
      ['unsigned', async (url) => idp.unsigned(await idp.responseFor(spXml, url, email)), /signature/i],
      [
        'another key',
        (url) => otherIdp.responseFor(spXml, url, email, () => ({ Issuer: `${idp.url}/metadata` })),
        /Invalid signature/,
      ],
      ['wrong audience', bend({ Audience: 'https://evil.example/sp' }), /audience mismatch/],
      ['wrong issuer', bend({ Issuer: 'https://evil.example/idp' }), /Unknown SAML issuer/],
      [
        'expired',
        bend({
          IssueInstant: past(20),
          ConditionsNotBefore: past(20),
          ConditionsNotOnOrAfter: past(10),
          SubjectConfirmationDataNotOnOrAfter: past(10),
        }),
        /No valid subject confirmation/,
      ],
      ['not yet valid', bend({ ConditionsNotBefore: past(-30) }), /not yet valid/],
      ['wrong recipient', bend({ SubjectRecipient: 'https://evil.example/acs' }), /Recipient is not/],
      [
        'wrong destination',
        bend({ Destination: 'https://evil.example/acs' }),
        /Destination https:\/\/evil\S+ is not/,
      ],
      ['not our request', bend({ InResponseTo: '_not-a-request-of-moat' }), /InResponseTo is not valid/],
      ['unknown user, no JIT', bend({ NameID: `nobody@${domain}` }), /just-in-time creation is off/],
      ['outside the domains', bend({ NameID: 'ceo@elsewhere.test' }), /not in one of the tenant's domains/],
    ];
    const before = (await failures()).length;
    for (const [name, make] of cases) {
      const response = await make(await start(email));
      const res = await acs(response);
      expect(popupQuery(res).get('ssoError'), name).toBe('saml');
    }
    const reasons = (await failures()).slice(before);
    expect(reasons).toHaveLength(cases.length);
    cases.forEach(([name, , why], i) => {
      expect(reasons[i], name).toMatch(why);
    });
  });

  it('refuses cheaply what node-saml would chew on, and keeps unsigned text out of the audit log', async () => {
    const email = `ana@${domain}`;
    const forged = (inside: string, inResponseTo: string) =>
      Buffer.from(
        `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r" Version="2.0" InResponseTo="${inResponseTo}">${inside}</samlp:Response>`,
      ).toString('base64');
    const many = forged('<saml:Assertion ID="a"/>'.repeat(3_000), requestIdOf(await start(email)));
    const res = await acs(many);
    expect(popupQuery(res).get('ssoError')).toBe('saml');
    expect(await lastReason()).toMatch(/too many elements|more than one assertion/);
    const nul = await acs(forged('', 'a&#0;b'));
    expect(nul.statusCode).toBe(303);
    expect(popupQuery(nul).get('ssoError')).toBe('saml');
    const status = await acs(
      forged(
        '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Responder"/><samlp:StatusMessage>Forged audit text</samlp:StatusMessage></samlp:Status>',
        requestIdOf(await start(email)),
      ),
    );
    expect(popupQuery(status).get('ssoError')).toBe('saml');
    const rows = await t.db.select({ details: auditLog.details, tenantId: auditLog.tenantId }).from(auditLog);
    expect(JSON.stringify(rows)).not.toContain('Forged audit text');
  });

  it('a start for a domain without SAML, a malformed ACS post and a bad tenant id answer 4xx', async () => {
    expect((await postJson(t.app, new Jar(), SSO_API.samlStart, { email: 'x@nosaml.test' })).statusCode).toBe(
      404,
    );
    expect((await postJson(t.app, new Jar(), SSO_API.samlStart, { email: 'not an email' })).statusCode).toBe(
      400,
    );
    const noBody = await t.app.inject({
      method: 'POST',
      url: SSO_API.samlAcs(tenantId),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'RelayState=x',
    });
    expect(noBody.statusCode).toBe(400);
    const garbage = await acs('not base64 <xml>');
    expect(popupQuery(garbage).get('ssoError')).toBe('saml');
    const badTenant = await t.app.inject({ method: 'GET', url: SSO_API.samlMetadata('nope') });
    expect(badTenant.statusCode).toBe(400);
  });

  it('creates an unknown user of the tenant just in time when allowed, with the chosen role', async () => {
    await postJson(t.app, admin, SSO_API.settings, { saml: { jit_enabled: true, jit_role: 'user' } }, 'PUT');
    const email = `newcomer@${domain}`;
    const browser = new Jar();
    const res = await acs(await idp.responseFor(spXml, await start(email, browser), email));
    const token = popupQuery(res).get('ssoToken') ?? '';
    expect((await postJson(t.app, browser, SSO_API.complete, { token })).json()).toMatchObject({
      next: 'done',
    });
    const [row] = await t.db.select().from(users).where(eq(users.email, email));
    expect(row).toMatchObject({ tenantId, role: 'user', status: 'active', passwordHash: null });
    // A NameID that is no address creates nobody, even signed by the tenant's own IdP.
    const odd = `admin@example.com@${domain}`;
    const refused = await acs(await idp.responseFor(spXml, await start(`ana@${domain}`), odd));
    expect(popupQuery(refused).get('ssoError')).toBe('saml');
    expect(await lastReason()).toMatch(/no valid email/);
    expect(await t.db.select().from(users).where(eq(users.email, odd))).toHaveLength(0);
    await postJson(t.app, admin, SSO_API.settings, { saml: { jit_enabled: false } }, 'PUT');
  });

  it("asks for Moat's MFA after SSO only when the tenant requires it", async () => {
    await t.db.update(tenants).set({ mfaRequired: true }).where(eq(tenants.id, tenantId));
    try {
      const email = `ana@${domain}`;
      const browser = new Jar();
      const res = await acs(await idp.responseFor(spXml, await start(email, browser), email));
      const step = await postJson(t.app, browser, SSO_API.complete, {
        token: popupQuery(res).get('ssoToken'),
      });
      expect(step.json()).toMatchObject({ next: 'mail_verification' });
    } finally {
      await t.db.update(tenants).set({ mfaRequired: false }).where(eq(tenants.id, tenantId));
    }
  });

  it('with passwords off, users must use SSO; admins keep their password', async () => {
    const off = await postJson(t.app, admin, SSO_API.settings, { passwords_allowed: false }, 'PUT');
    expect(off.json().passwords_allowed).toBe(false);
    const user = await login(t.app, new Jar(), `ana@${domain}`, PASSWORD);
    expect(user.statusCode).toBe(403);
    expect(user.json().message).toBe(PASSWORDS_OFF_MESSAGE);
    const boss = await login(t.app, new Jar(), `admin@${domain}`, PASSWORD);
    expect(boss.json()).toMatchObject({ next: 'done' });
    await postJson(t.app, admin, SSO_API.settings, { passwords_allowed: true }, 'PUT');
    const [audit] = await t.db
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'settings.sign_in_updated'), eq(auditLog.tenantId, tenantId)))
      .limit(1);
    expect(audit?.details).toBeDefined();
  });
});
