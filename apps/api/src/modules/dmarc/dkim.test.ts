import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { type DkimDomain, type DkimProblem, DMARC_API, dkimResponseSchema } from '@moat/contracts/dmarc';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dmarcDkimKeys, mailLog, tenantDomains } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { COMMON_SELECTORS, checkKeyRecords, nextSelector, rotationPlan, validSelector } from './dkim.ts';
import { GOOGLE_REPORT } from './test-reports.ts';

/** Real keys, made now: the public halves as a DKIM record publishes them. */
const rsa = (bits: number, type: 'spki' | 'pkcs1' = 'spki') =>
  generateKeyPairSync('rsa', { modulusLength: bits })
    .publicKey.export({ type, format: 'der' })
    .toString('base64');
const ed25519 = () => {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return Buffer.from(jwk.x!, 'base64url').toString('base64');
};
const RSA_512 = rsa(512);
const RSA_1024 = rsa(1024);
const RSA_2048 = rsa(2048);
const RSA_2048_PKCS1 = rsa(2048, 'pkcs1');
const ED25519 = ed25519();

/** A record as DNS carries it: strings of at most 255 characters. */
const txt = (record: string) => record.match(/.{1,255}/g) ?? [''];
const check = (records: string[][]) => checkKeyRecords(records, 'acme.test', 's1');
const codes = (problems: DkimProblem[]) => problems.map((p) => p.code);

describe('reading a DKIM key record (RFC 6376 §3.6.1)', () => {
  it('reads RSA keys of 1024 and 2048 bits and an Ed25519 key, with their sizes', () => {
    const strong = check([txt(`v=DKIM1; k=rsa; p=${RSA_2048}`)]);
    expect(strong).toMatchObject({ lookup: 'found', key: { type: 'rsa', bits: 2048, revoked: false } });
    expect(strong.problems).toEqual([]);
    expect(strong.hash).toMatch(/^[0-9a-f]{64}$/);

    const weak = check([txt(`v=DKIM1; p=${RSA_1024}`)]);
    expect(weak.key).toMatchObject({ type: 'rsa', bits: 1024 });
    expect(weak.problems).toEqual([
      expect.objectContaining({ code: 'rsa_weak', severity: 'warning', count: 1024 }),
    ]);
    expect(weak.problems[0]!.message).toMatch(/Rotate to a 2048-bit key/);

    const ed = check([[`v=DKIM1; k=ed25519; p=${ED25519}`]]);
    expect(ed.key).toMatchObject({ type: 'ed25519', bits: 256 });
    expect(ed.problems).toEqual([]);
  });

  it('calls an RSA key under 1024 bits an error (receivers ignore it), and reads a PKCS#1 key with a warning', () => {
    const short = check([[`v=DKIM1; k=rsa; p=${RSA_512}`]]);
    expect(short.key?.bits).toBe(512);
    expect(short.problems[0]).toMatchObject({ code: 'rsa_too_short', severity: 'error', count: 512 });
    const pkcs1 = check([txt(`v=DKIM1; k=rsa; p=${RSA_2048_PKCS1}`)]);
    expect(pkcs1.key).toMatchObject({ type: 'rsa', bits: 2048 });
    expect(codes(pkcs1.problems)).toEqual(['pkcs1_key']);
  });

  it('reads the flags, hashes, services and notes; a revoked key is an empty p=', () => {
    const testing = check([txt(`v=DKIM1; k=rsa; t=y:s; h=sha256; n=rotated in May; p=${RSA_2048}`)]);
    expect(testing.key).toMatchObject({
      testing: true,
      strict: true,
      hashes: ['sha256'],
      notes: 'rotated in May',
    });
    expect(codes(testing.problems)).toEqual(['testing']);
    const revoked = check([['v=DKIM1; k=rsa; p=']]);
    expect(revoked.key).toMatchObject({ revoked: true, bits: null });
    expect(revoked.hash).toBeNull();
    expect(codes(revoked.problems)).toEqual(['revoked']);
    const limited = check([txt(`v=DKIM1; h=sha1; s=ftp; p=${RSA_2048}`)]);
    expect(codes(limited.problems)).toEqual(['not_for_email', 'sha1_only']);
    // Spaces inside the key (folding) are allowed.
    expect(check([txt(`v=DKIM1; p=${RSA_2048.replace(/(.{64})/g, '$1 ')}`)]).key?.bits).toBe(2048);
  });

  it('names malformed records: syntax, version, duplicate tags, no key, unknown type, cut-short key', () => {
    expect(codes(check([[`v=DKIM1; garbage; p=${ED25519}`]]).problems)).toEqual(['syntax']);
    expect(codes(check([txt(`k=rsa; v=DKIM1; p=${RSA_2048}`)]).problems)).toEqual(['bad_version']);
    expect(codes(check([txt(`v=DKIM2; p=${RSA_2048}`)]).problems)).toEqual(['bad_version']);
    expect(codes(check([txt(`v=DKIM1; p=${RSA_2048}; p=${RSA_1024}`)]).problems)).toEqual(['duplicate_tag']);
    expect(codes(check([['v=DKIM1; k=rsa; n=no key here']]).problems)).toEqual(['no_key_tag']);
    expect(codes(check([['v=DKIM1; k=dsa; p=AAAA']]).problems)).toEqual(['unknown_key_type']);
    const cut = check([[`v=DKIM1; k=rsa; p=${RSA_2048.slice(0, 200)}`]]);
    expect(cut.key?.bits).toBeNull();
    expect(codes(cut.problems)).toEqual(['bad_key']);
    expect(codes(check([[`v=DKIM1; k=ed25519; p=${RSA_1024}`]]).problems)).toEqual(['key_type_mismatch']);
    expect(codes(check([[`v=DKIM1; k=rsa; p=${ED25519}`]]).problems)).toEqual(['key_type_mismatch']);
    // Other TXT records at the name are not DKIM: no key.
    expect(check([['google-site-verification=abc']]).lookup).toBe('none');
  });

  it('says when a long key is split wrongly, and when the name publishes two records', () => {
    const quoted = check([[`v=DKIM1; k=rsa; p=${RSA_2048.slice(0, 200)}" "${RSA_2048.slice(200)}`]]);
    expect(codes(quoted.problems)).toContain('split_wrong');
    const apart = check([[`v=DKIM1; k=rsa; p=${RSA_2048.slice(0, 200)}`], [RSA_2048.slice(200)]]);
    expect(codes(apart.problems)).toEqual(['split_wrong', 'bad_key']);
    const two = check([txt(`v=DKIM1; p=${RSA_2048}`), txt(`v=DKIM1; p=${RSA_1024}`)]);
    expect(two.problems[0]).toMatchObject({ code: 'multiple_records', count: 2 });
    expect(two.key?.bits).toBe(2048);
  });

  it('knows a selector DNS can carry, and counts the next selector on', () => {
    expect(validSelector('selector1')).toBe(true);
    expect(validSelector('2024.eu_west')).toBe(true);
    expect(validSelector('bad name')).toBe(false);
    expect(validSelector('-x')).toBe(false);
    expect(validSelector('')).toBe(false);
    expect(nextSelector('s1', ['s1', 's2'])).toBe('s3');
    expect(nextSelector('google', ['google'])).toBe('google2');
    expect(nextSelector('k2024', [])).toBe('k2025');
  });
});

describe('the rotation plan', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const key = (bits: number | null, type: 'rsa' | 'ed25519' = 'rsa') => ({
    record: '',
    type,
    bits,
    revoked: false,
    testing: false,
    strict: false,
    hashes: [],
    notes: '',
  });

  it('rotates a 1024-bit key to a new selector in five steps with the exact names', () => {
    const plan = rotationPlan('acme.test', [{ selector: 's1', key: key(1024), keyFirstSeen: now }], now);
    expect(plan.status).toBe('rotate');
    expect(plan.rotations).toHaveLength(1);
    const rotation = plan.rotations[0]!;
    expect(rotation).toMatchObject({ selector: 's1', newSelector: 's2', reason: 'weak', bits: 1024 });
    expect(rotation.steps).toEqual([
      {
        code: 'publish',
        name: 's2._domainkey.acme.test',
        value: 'v=DKIM1; k=rsa; p=<the new public key>',
        days: null,
      },
      { code: 'switch', name: 's2._domainkey.acme.test', value: null, days: null },
      { code: 'keep', name: 's1._domainkey.acme.test', value: null, days: 7 },
      { code: 'revoke', name: 's1._domainkey.acme.test', value: 'v=DKIM1; k=rsa; p=', days: null },
      { code: 'remove', name: 's1._domainkey.acme.test', value: null, days: 7 },
    ]);
  });

  it('rotates a strong key first seen over six months ago; a recent one is not due until then', () => {
    const old = new Date('2025-11-01T00:00:00Z');
    const recent = new Date('2026-05-01T00:00:00Z');
    const plan = rotationPlan(
      'acme.test',
      [
        { selector: 'google', key: key(2048), keyFirstSeen: old },
        { selector: 'mail', key: key(2048), keyFirstSeen: recent },
      ],
      now,
    );
    expect(plan.rotations.map((r) => [r.selector, r.newSelector, r.reason])).toEqual([
      ['google', 'google2', 'old'],
    ]);
    expect(plan).toMatchObject({ nextSelector: 'mail', nextRotation: '2026-10-28' });
    const fine = rotationPlan('acme.test', [{ selector: 'mail', key: key(2048), keyFirstSeen: recent }], now);
    expect(fine).toMatchObject({ status: 'none_due', rotations: [], nextRotation: '2026-10-28' });
  });

  it('asks for a first key when there is none, at the selector mail is signed with if any', () => {
    expect(rotationPlan('acme.test', [], now)).toMatchObject({
      status: 'publish',
      publish: { name: 's1._domainkey.acme.test', value: 'v=DKIM1; k=rsa; p=<the new public key>' },
    });
    expect(
      rotationPlan('acme.test', [{ selector: 'mx9', key: null, keyFirstSeen: null }], now).publish?.name,
    ).toBe('mx9._domainkey.acme.test');
  });
});

// ---------------------------------------------------------------------------------------------

const zone: TestZone = {
  // Signs its mail (the report names s1) with a 1024-bit key; the gateway saw mail2024, 2048 bits.
  's1._domainkey.acme.test': { TXT: [txt(`v=DKIM1; k=rsa; p=${RSA_1024}`)] },
  'mail2024._domainkey.acme.test': { TXT: [txt(`v=DKIM1; k=rsa; p=${RSA_2048}`)] },
  // Found only by asking DNS: Ed25519, still in testing.
  'google._domainkey.acme.test': { TXT: [[`v=DKIM1; k=ed25519; t=y; p=${ED25519}`]] },
  'selector1._domainkey.acme.test': { fail: 'servfail' },
  'default._domainkey.weak.test': { TXT: [[`v=DKIM1; k=rsa; p=${RSA_512}`]] },
  'selector2._domainkey.weak.test': { TXT: [['v=DKIM1; k=rsa; p=']] },
  'dkim._domainkey.weak.test': { TXT: [txt(`v=DKIM1; p=${RSA_2048}`), txt(`v=DKIM1; p=${RSA_1024}`)] },
  'k1._domainkey.weak.test': { TXT: [txt(`v=DKIM1; p=${RSA_2048_PKCS1}`)] },
  ...Object.fromEntries(
    COMMON_SELECTORS.map((s) => [`${s}._domainkey.down.test`, { fail: 'servfail' as const }]),
  ),
};

describe('GET /api/v1/dmarc/dkim', () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  let tenantId: string;
  let now = new Date('2026-01-15T12:00:00Z');

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    t = await buildTestApp({ env: { DNS_SERVERS: dns.address }, clock: { now: () => now } });
    const tenant = await buildTenant(t.db, { domain: 'acme.test' });
    tenantId = tenant.id;
    for (const domain of ['weak.test', 'empty.test', 'down.test'])
      await t.db.insert(tenantDomains).values({ tenantId, domain });
    const a = await buildUser(t.db, tenantId, { email: 'admin@acme.test', role: 'admin' });
    admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
    const u = await buildUser(t.db, tenantId, { email: 'ana@acme.test' });
    user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
    // A Google report (December 2025): acme.test signed with s1, 42 passed and 3 failed.
    const uploaded = await t.app.inject({
      method: 'POST',
      url: DMARC_API.reports,
      headers: { ...admin, 'content-type': 'application/xml' },
      payload: GOOGLE_REPORT,
    });
    expect(uploaded.statusCode).toBe(201);
    // Mail through the gateway from acme.test, signed with mail2024 (two recipients of one message).
    const inboundId = randomUUID();
    for (const recipient of ['ana@acme.test', 'bo@acme.test'])
      await t.db.insert(mailLog).values({
        tenantId,
        inboundId,
        recipient,
        sender: 'news@acme.test',
        receivedAt: new Date('2026-01-10T09:00:00Z'),
        verdict: 'clean',
        action: 'delivered',
        dkim: 'pass',
        size: 1000,
        details: {
          auth: {
            spf: { result: 'pass', reason: 'spf=pass' },
            dkim: {
              result: 'pass',
              reason: 'dkim=pass header.i=@acme.test header.s=mail2024 header.a=rsa-sha256 header.b=AbCd',
            },
            dmarc: { result: 'pass', reason: 'dmarc=pass' },
          },
        },
      });
  });
  afterAll(async () => {
    await t?.close();
    await dns?.close();
  });

  const get = async (query = '', headers = admin) =>
    t.app.inject({ method: 'GET', url: `${DMARC_API.dkim}${query}`, headers });
  const domainOf = (body: { domains: DkimDomain[] }, name: string) =>
    body.domains.find((d) => d.domain === name)!;

  it('lists the selectors seen in reports, in mail and in DNS, each key checked, and a rotation plan', async () => {
    const response = await get();
    expect(response.statusCode).toBe(200);
    const body = dkimResponseSchema.parse(response.json());
    expect(body.domains.map((d) => d.domain)).toEqual(['acme.test', 'weak.test', 'empty.test', 'down.test']);
    const acme = domainOf(body, 'acme.test');
    expect(acme.selectors.map((s) => [s.selector, s.seenIn, s.messages, s.passed])).toEqual([
      ['s1', ['reports', 'dns'], 45, 42],
      ['mail2024', ['mail', 'dns'], 1, 1],
      ['google', ['dns'], 0, 0],
    ]);
    const s1 = acme.selectors[0]!;
    expect(s1).toMatchObject({
      name: 's1._domainkey.acme.test',
      passRate: 93.3,
      firstSeen: '2025-12-02T00:00:00.000Z',
      keyFirstSeen: '2025-12-02T00:00:00.000Z',
      key: { type: 'rsa', bits: 1024 },
    });
    expect(codes(s1.problems)).toEqual(['rsa_weak']);
    expect(acme.selectors[1]!.key).toMatchObject({ type: 'rsa', bits: 2048 });
    expect(acme.selectors[2]!.key).toMatchObject({ type: 'ed25519', bits: 256, testing: true });
    expect(codes(acme.selectors[2]!.problems)).toEqual(['testing']);
    // The 1024-bit key is to be rotated; the others are new.
    expect(acme.plan.status).toBe('rotate');
    expect(acme.plan.rotations.map((r) => [r.selector, r.newSelector, r.reason])).toEqual([
      ['s1', 's2', 'weak'],
    ]);
    expect(acme.problems).toEqual([]);

    const weak = domainOf(body, 'weak.test');
    const bySelector = Object.fromEntries(weak.selectors.map((s) => [s.selector, codes(s.problems)]));
    expect(bySelector).toEqual({
      default: ['rsa_too_short'],
      dkim: ['multiple_records'],
      k1: ['pkcs1_key'],
      selector2: ['revoked'],
    });
    expect(weak.plan.rotations.map((r) => [r.selector, r.newSelector, r.reason])).toEqual([
      ['default', 'default2', 'too_short'],
    ]);

    const empty = domainOf(body, 'empty.test');
    expect(empty.selectors).toEqual([]);
    expect(codes(empty.problems)).toEqual(['no_key']);
    expect(empty.plan).toMatchObject({ status: 'publish', publish: { name: 's1._domainkey.empty.test' } });

    const down = domainOf(body, 'down.test');
    expect(codes(down.problems)).toEqual(['lookup_failed']);
    expect(down.plan.status).toBe('unknown');
  });

  it('remembers each key, so its age survives the reports; a key older than six months is due', async () => {
    const kept = await t.db.select().from(dmarcDkimKeys).where(eq(dmarcDkimKeys.tenantId, tenantId));
    expect(kept.map((k) => [k.domain, k.selector, k.bits]).sort()).toEqual(
      [
        ['acme.test', 'google', 256],
        ['acme.test', 'mail2024', 2048],
        ['acme.test', 's1', 1024],
        ['weak.test', 'default', 512],
        ['weak.test', 'dkim', 2048],
        ['weak.test', 'k1', 2048],
      ].sort(),
    );
    // s1 becomes a good key; seven months on, past the reports' window: mail2024 is old now.
    zone['s1._domainkey.acme.test'] = { TXT: [txt(`v=DKIM1; k=rsa; p=${RSA_2048}`)] };
    now = new Date('2026-08-15T12:00:00Z');
    const acme = domainOf(dkimResponseSchema.parse((await get('?domain=acme.test')).json()), 'acme.test');
    const mail = acme.selectors.find((s) => s.selector === 'mail2024')!;
    expect(mail).toMatchObject({ seenIn: ['dns'], keyFirstSeen: '2026-01-10T09:00:00.000Z' });
    // s1's new key is a key of its own: counted from today, not from the old key's reports.
    const s1 = acme.selectors.find((s) => s.selector === 's1')!;
    expect(s1.keyFirstSeen).toBe(now.toISOString());
    expect(acme.plan.rotations.map((r) => [r.selector, r.newSelector, r.reason])).toEqual([
      ['google', 'google2', 'old'],
      ['mail2024', 'mail2025', 'old'],
    ]);
    // An Ed25519 key is rotated to a new Ed25519 key.
    expect(acme.plan.rotations[0]!.steps[0]!.value).toBe('v=DKIM1; k=ed25519; p=<the new public key>');
    expect(acme.plan.nextSelector).toBe('s1');
  });

  it('gives the Recommendations each domain’s weak or missing keys', async () => {
    const found = await t.app.services.dkim.keyProblems(tenantId);
    const of = (d: string) => found.find((f) => f.domain === d)!;
    expect(codes(of('empty.test').problems)).toEqual(['no_key']);
    expect(codes(of('weak.test').problems)).toEqual(['rsa_too_short', 'multiple_records', 'pkcs1_key']);
    expect(of('weak.test').problems[0]!.message).toMatch(/only 512 bits/);
  });

  it('checks one domain when asked, refuses another’s or a malformed one, and a plain user', async () => {
    const one = await get('?domain=WEAK.test');
    expect(one.statusCode).toBe(200);
    expect(one.json().domains.map((d: DkimDomain) => d.domain)).toEqual(['weak.test']);
    const other = await get('?domain=example.org');
    expect(other.statusCode).toBe(404);
    expect(other.json().message).toMatch(/not one of your domains/);
    expect((await get(`?domain=${encodeURIComponent('bad name;')}`)).statusCode).toBe(400);
    expect((await get('', user)).statusCode).toBe(403);
  });
});
