import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API, type SpfDomain, type SpfNode, spfResponseSchema } from '@moat/contracts/dmarc';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantDomains } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { spfResolver } from './spf.service.ts';
import { checkSpf, parseTerm, type SpfResolver } from './spf.ts';

/** TXT records, each split into strings of at most 255 characters as DNS carries them. */
const txt = (...records: string[]) => records.map((record) => record.match(/.{1,255}/g) ?? ['']);
/** Twelve includes of fixed addresses: two over the limit. */
const TWELVE = Array.from({ length: 12 }, (_, i) => `include:s${i + 1}.many.test`);

const zone: TestZone = {
  'good.test': {
    TXT: txt('v=spf1 a mx include:_spf.provider.test ip4:192.0.2.0/24 -all', 'google-site-verification=x'),
    A: ['192.0.2.1'],
    MX: [{ priority: 10, exchange: 'mx.good.test' }],
  },
  '_spf.provider.test': {
    TXT: txt('v=spf1 ip4:198.51.100.0/24 include:_spf2.provider.test ~all'),
  },
  '_spf2.provider.test': { TXT: txt('v=spf1 ip6:2001:db8::/32 -all') },
  'many.test': { TXT: txt(`v=spf1 ${TWELVE.join(' ')} -all`) },
  ...Object.fromEntries(
    TWELVE.map((_, i) => [`s${i + 1}.many.test`, { TXT: txt(`v=spf1 ip4:203.0.113.${i + 1} -all`) }]),
  ),
  'nested.test': {
    TXT: txt(
      'v=spf1 include:big.provider.test include:s1.many.test include:s2.many.test include:s3.many.test include:s4.many.test include:s5.many.test include:s6.many.test include:s7.many.test -all',
    ),
  },
  'big.provider.test': {
    TXT: txt('v=spf1 include:b1.provider.test include:b2.provider.test include:b3.provider.test ~all'),
  },
  'b1.provider.test': { TXT: txt('v=spf1 ip4:192.0.2.128/25 -all') },
  'b2.provider.test': { TXT: txt('v=spf1 ip6:2001:db8:1::/48 -all') },
  'b3.provider.test': { TXT: txt('v=spf1 ip4:192.0.2.64/26 ip4:192.0.2.128/25 -all') },
  'voids.test': {
    TXT: txt(
      'v=spf1 a:gone1.void.test a:nodata.void.test mx:gone3.void.test include:gone4.void.test ip4:192.0.2.1 -all',
    ),
  },
  'nodata.void.test': { TXT: txt('not an spf record') },
  'loop.test': { TXT: txt('v=spf1 ip4:192.0.2.1 include:loop2.test -all') },
  'loop2.test': { TXT: txt('v=spf1 include:loop.test -all') },
  'open.test': { TXT: txt('v=spf1 ip4:192.0.2.1 +all') },
  'neutral.test': { TXT: txt('v=spf1 ip4:192.0.2.1 ?all') },
  'endless.test': { TXT: txt('v=spf1 ip4:192.0.2.1') },
  'ptr.test': { TXT: txt('v=spf1 ptr ip4:192.0.2.1 ptr:example.test ~all') },
  'none.test': { TXT: txt('google-site-verification=abc') },
  'two.test': {
    TXT: txt('v=spf1 ip4:192.0.2.1 -all', 'v=spf1 include:_spf2.provider.test ip4:192.0.2.1 ~all'),
  },
  'syntax.test': {
    TXT: txt('v=spf1 ip4:192.0.2.300 ip6:2001:db8::/129 foo:bar include ip4:192.0.2.0/24 a:mail -all'),
  },
  'redirect.test': { TXT: txt('v=spf1 redirect=_spf.provider.test') },
  'wide-open.test': { TXT: txt('v=spf1 include:anyone.provider.test -all') },
  'anyone.provider.test': { TXT: txt('v=spf1 +all') },
  'broken.test': { fail: 'servfail' },
  'slow.test': { fail: 'timeout' },
  'partly.test': { TXT: txt('v=spf1 include:slow.test ip4:192.0.2.1 -all') },
  'macro.test': { TXT: txt('v=spf1 exists:%{i}._spf.macro.test -all') },
  // A long record published as several strings, as a TXT record over 255 characters must be.
  'long.test': {
    TXT: txt(
      `v=spf1 ${Array.from({ length: 20 }, (_, i) => `ip6:2001:db8:${i.toString(16)}::/48`).join(' ')} ${Array.from({ length: 20 }, (_, i) => `ip4:198.51.${i}.0/24`).join(' ')} -all`,
    ),
  },
  ...Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [
      `c${i}.chain.test`,
      { TXT: txt(`v=spf1 include:c${i + 1}.chain.test -all`) },
    ]),
  ),
};

let dns: Awaited<ReturnType<typeof startDnsServer>>;
let resolver: SpfResolver;
let asked: string[];

beforeAll(async () => {
  dns = await startDnsServer(zone);
  const real = spfResolver([dns.address], { timeoutMs: 300, tries: 1 });
  resolver = (name, rrtype) => {
    asked.push(`${rrtype} ${name}`);
    return real(name, rrtype);
  };
});
afterAll(async () => {
  await dns.close();
});

const check = async (domain: string) => {
  asked = [];
  return checkSpf(domain, resolver);
};
const codes = (result: SpfDomain) => result.problems.map((p) => p.code);
const changes = (result: SpfDomain) => result.corrected?.changes.map((c) => c.code) ?? [];
const nodes = (node: SpfNode | null): SpfNode[] => (node ? [node, ...node.children.flatMap(nodes)] : []);

describe('parsing SPF terms (RFC 7208)', () => {
  it('reads each mechanism with its qualifier, and modifiers', () => {
    expect(parseTerm('-include:_spf.example.com')).toMatchObject({
      kind: 'include',
      qualifier: '-',
      value: '_spf.example.com',
      error: null,
    });
    expect(parseTerm('a:mail.example.com/24//64')).toMatchObject({
      kind: 'a',
      qualifier: '+',
      target: 'mail.example.com',
      error: null,
    });
    expect(parseTerm('MX/30')).toMatchObject({ kind: 'mx', target: null, error: null });
    expect(parseTerm('~ALL')).toMatchObject({ kind: 'all', qualifier: '~' });
    expect(parseTerm('ip6:2001:db8::/32')).toMatchObject({ kind: 'ip6', error: null });
    expect(parseTerm('redirect=_spf.example.com')).toMatchObject({ kind: 'redirect', qualifier: null });
    expect(parseTerm('exists:%{i}.%{d}')).toMatchObject({ kind: 'exists', error: null });
    expect(parseTerm('custom-thing=anything')).toMatchObject({ kind: 'modifier', error: null });
  });

  it('names the syntax errors receivers answer with a permerror', () => {
    expect(parseTerm('ip4:192.0.2.0/33').error).toBe('bad_ip4');
    expect(parseTerm('ip4:192.0.2').error).toBe('bad_ip4');
    expect(parseTerm('ip6:2001:db8::/129').error).toBe('bad_ip6');
    expect(parseTerm('ip6:192.0.2.1').error).toBe('bad_ip6');
    expect(parseTerm('inclde:_spf.example.com').error).toBe('unknown_term');
    expect(parseTerm('all:x').error).toBe('unknown_term');
    expect(parseTerm('include').error).toBe('bad_domain');
    expect(parseTerm('a:mail').error).toBe('bad_domain');
    expect(parseTerm('a:mail.example.com/40').error).toBe('bad_ip4');
  });
});

describe('checking a domain’s SPF record over DNS', () => {
  it('counts the lookups of a, mx and includes, nested, into a tree; a good record needs no correction', async () => {
    const result = await check('good.test');
    expect(result).toMatchObject({
      checked: true,
      records: ['v=spf1 a mx include:_spf.provider.test ip4:192.0.2.0/24 -all'],
      lookups: 4,
      voidLookups: 0,
      complete: true,
      problems: [],
      corrected: null,
    });
    const tree = result.tree!;
    expect(tree.lookups).toBe(4);
    expect(tree.terms.map((t) => [t.text, t.counted])).toEqual([
      ['a', true],
      ['mx', true],
      ['include:_spf.provider.test', true],
      ['ip4:192.0.2.0/24', false],
      ['-all', false],
    ]);
    expect(tree.children).toHaveLength(1);
    expect(tree.children[0]).toMatchObject({ domain: '_spf.provider.test', via: 'include', lookups: 2 });
    expect(tree.children[0]!.children[0]).toMatchObject({
      domain: '_spf2.provider.test',
      lookups: 1,
      record: 'v=spf1 ip6:2001:db8::/32 -all',
    });
  });

  it('says more than 10 lookups is a permerror, marks the terms past it, and flattens fixed includes', async () => {
    const result = await check('many.test');
    expect(result.lookups).toBe(12);
    expect(result.problems[0]).toMatchObject({ code: 'too_many_lookups', severity: 'error', count: 12 });
    expect(result.tree!.terms.filter((t) => t.beyondLimit).map((t) => t.text)).toEqual([
      'include:s11.many.test',
      'include:s12.many.test',
    ]);
    expect(result.tree!.children.filter((c) => c.beyondLimit).map((c) => c.domain)).toEqual([
      's11.many.test',
      's12.many.test',
    ]);
    const corrected = result.corrected!;
    expect(corrected.lookups).toBe(10);
    // Longer than one string of a TXT record can hold: published as several.
    expect(changes(result)).toEqual(['flattened', 'flattened', 'split_strings']);
    expect(corrected.changes[0]!.message).toMatch(/Keep this up to date/);
    // Replaced in place, by the addresses the include publishes.
    const flattened = corrected.changes.filter((c) => c.code === 'flattened').map((c) => c.term);
    for (const term of flattened) expect(corrected.record).not.toContain(`${term} `);
    expect(corrected.record).toMatch(/^v=spf1 (include:s\d+\.many\.test |ip4:203\.0\.113\.\d+ ){12}-all$/);
    expect(corrected.record.match(/ip4:/g)).toHaveLength(2);
  });

  it('flattens the costliest include first, nested includes and all, dropping addresses already there', async () => {
    const result = await check('nested.test');
    expect(result.lookups).toBe(11);
    expect(result.tree!.children[0]).toMatchObject({ domain: 'big.provider.test', lookups: 4 });
    const corrected = result.corrected!;
    expect(corrected.lookups).toBe(7);
    expect(corrected.changes).toHaveLength(1);
    expect(corrected.changes[0]).toMatchObject({
      code: 'flattened',
      term: 'include:big.provider.test',
      domain: 'big.provider.test',
      count: 3,
    });
    expect(corrected.record).toMatch(
      /^v=spf1 ip4:192\.0\.2\.128\/25 ip6:2001:db8:1::\/48 ip4:192\.0\.2\.64\/26 include:s1\.many\.test /,
    );
  });

  it('counts void lookups (no such name, no answer) against the limit of 2, and removes those terms', async () => {
    const result = await check('voids.test');
    expect(result.voidLookups).toBe(4);
    expect(codes(result)).toEqual(
      expect.arrayContaining(['too_many_void_lookups', 'include_no_record', 'void_term']),
    );
    expect(result.problems.find((p) => p.code === 'too_many_void_lookups')).toMatchObject({
      severity: 'error',
      count: 4,
    });
    const voided = result.tree!.terms.filter((t) => t.void).map((t) => t.text);
    expect(voided).toEqual([
      'a:gone1.void.test',
      'a:nodata.void.test',
      'mx:gone3.void.test',
      'include:gone4.void.test',
    ]);
    expect(result.corrected!.record).toBe('v=spf1 ip4:192.0.2.1 -all');
    expect(changes(result)).toEqual([
      'removed_void',
      'removed_void',
      'removed_void',
      'removed_include_no_record',
    ]);
  });

  it('stops at an include that leads back to the record (a cycle) and says so', async () => {
    const result = await check('loop.test');
    expect(codes(result)).toContain('cycle');
    expect(nodes(result.tree).map((n) => [n.domain, n.status])).toEqual([
      ['loop.test', 'ok'],
      ['loop2.test', 'ok'],
      ['loop.test', 'cycle'],
    ]);
    expect(asked.filter((q) => q === 'TXT loop.test')).toHaveLength(1);
    expect(result.corrected).toBeNull();
  });

  it('calls +all a pass for anyone and corrects it to -all; ?all and a missing all are neutral', async () => {
    const open = await check('open.test');
    expect(open.problems[0]).toMatchObject({ code: 'pass_all', severity: 'error', term: '+all' });
    expect(open.corrected).toMatchObject({ record: 'v=spf1 ip4:192.0.2.1 -all' });
    expect(changes(open)).toEqual(['pass_all_to_fail']);

    const neutral = await check('neutral.test');
    expect(neutral.problems[0]).toMatchObject({ code: 'neutral_all', severity: 'warning' });
    expect(neutral.corrected?.record).toBe('v=spf1 ip4:192.0.2.1 ~all');

    const endless = await check('endless.test');
    expect(codes(endless)).toEqual(['no_all']);
    expect(endless.corrected?.record).toBe('v=spf1 ip4:192.0.2.1 ~all');
    expect(changes(endless)).toEqual(['added_all']);

    // An include that passes everyone makes the whole record pass everyone.
    const wide = await check('wide-open.test');
    expect(wide.problems[0]).toMatchObject({ code: 'pass_all', domain: 'anyone.provider.test' });

    // A redirect decides with the record it points at.
    const redirect = await check('redirect.test');
    expect(redirect.problems).toEqual([]);
    expect(redirect.lookups).toBe(2);
    expect(redirect.tree!.children[0]).toMatchObject({ via: 'redirect', domain: '_spf.provider.test' });
  });

  it('warns of ptr (deprecated), counts it, and removes it from the corrected record', async () => {
    const result = await check('ptr.test');
    expect(result.lookups).toBe(2);
    expect(result.problems.filter((p) => p.code === 'ptr').map((p) => p.term)).toEqual([
      'ptr',
      'ptr:example.test',
    ]);
    expect(result.corrected?.record).toBe('v=spf1 ip4:192.0.2.1 ~all');
    expect(changes(result)).toEqual(['removed_ptr', 'removed_ptr']);
  });

  it('says a domain publishes no SPF record (other TXT records, or no such name)', async () => {
    for (const domain of ['none.test', 'nowhere.test']) {
      const result = await check(domain);
      expect(result).toMatchObject({ checked: true, records: [], tree: null, corrected: null });
      expect(result.problems).toEqual([expect.objectContaining({ code: 'no_record', severity: 'error' })]);
    }
  });

  it('says two SPF records are a permerror and merges them into one', async () => {
    const result = await check('two.test');
    expect(result.records).toHaveLength(2);
    expect(result.problems[0]).toMatchObject({ code: 'multiple_records', count: 2 });
    expect(result.corrected?.record).toBe('v=spf1 ip4:192.0.2.1 include:_spf2.provider.test -all');
    expect(changes(result)).toEqual(['merged', 'removed_duplicate']);
  });

  it('names syntax errors and drops the invalid terms from the corrected record', async () => {
    const result = await check('syntax.test');
    expect(codes(result)).toEqual(['bad_ip4', 'bad_ip6', 'unknown_term', 'bad_domain', 'bad_domain']);
    expect(result.corrected?.record).toBe('v=spf1 ip4:192.0.2.0/24 -all');
    expect(result.corrected?.changes.every((c) => c.code === 'removed_invalid')).toBe(true);
  });

  it('reports a failing server as not checked, not as an error; a failing include as not checked', async () => {
    expect(await check('broken.test')).toMatchObject({ checked: false, failure: 'servfail', problems: [] });
    expect(await check('slow.test')).toMatchObject({ checked: false, failure: 'timeout' });
    const partly = await check('partly.test');
    expect(partly.checked).toBe(true);
    expect(partly.problems[0]).toMatchObject({ code: 'include_failed', term: 'include:slow.test' });
    expect(partly.tree!.children[0]).toMatchObject({ status: 'failed', failure: 'timeout' });
    expect(partly.corrected).toBeNull();
    // No DNS server at all.
    const gone = await startDnsServer({});
    await gone.close();
    const nowhere = await checkSpf('good.test', spfResolver([gone.address], { timeoutMs: 300, tries: 1 }));
    expect(nowhere.checked).toBe(false);
  });

  it('leaves a macro unresolved but counts it', async () => {
    const result = await check('macro.test');
    expect(result.lookups).toBe(1);
    expect(codes(result)).toEqual(['macro']);
    expect(asked).toEqual(['TXT macro.test']);
  });

  it('reads a record split into strings as one, and warns when it is over 512 bytes', async () => {
    const result = await check('long.test');
    expect(result.records[0]).toMatch(/^v=spf1 ip6:2001:db8:0::\/48 .* ip4:198\.51\.19\.0\/24 -all$/);
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'record_too_long', severity: 'warning' }),
    ]);
  });

  it('keeps to its own bounds of depth and lookups on an endless chain of includes', async () => {
    const result = await check('c0.chain.test');
    expect(asked.length).toBeLessThanOrEqual(30);
    expect(codes(result)).toEqual(expect.arrayContaining(['too_deep', 'too_many_lookups']));
    const bounded = await checkSpf('c0.chain.test', resolver, { queries: 5, timeMs: 10_000, depth: 20 });
    expect(bounded.complete).toBe(false);
    expect(codes(bounded)).toContain('incomplete');
  });
});

describe('GET /api/v1/dmarc/spf', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  let lonelyAdmin: Record<string, string>;

  beforeAll(async () => {
    t = await buildTestApp({ spfResolver: spfResolver([dns.address], { timeoutMs: 300, tries: 1 }) });
    const tenant = await buildTenant(t.db, { domain: 'good.test' });
    await t.db.insert(tenantDomains).values({ tenantId: tenant.id, domain: 'broken.test' });
    const a = await buildUser(t.db, tenant.id, { email: 'admin@good.test', role: 'admin' });
    admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
    const u = await buildUser(t.db, tenant.id, { email: 'ana@good.test' });
    user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
    const lonely = await buildTenant(t.db, { domain: 'lonely.test' });
    await t.db.delete(tenantDomains).where(eq(tenantDomains.tenantId, lonely.id));
    const l = await buildUser(t.db, lonely.id, { email: 'admin@lonely.test', role: 'admin' });
    lonelyAdmin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, l)).token}`, ...CSRF };
  });
  afterAll(async () => {
    await t.close();
  });

  const get = (query: string, headers = admin) =>
    t.app.inject({ method: 'GET', url: `${DMARC_API.spf}${query}`, headers });

  it("answers every one of the tenant's domains; one whose lookup fails is not checked, not a 500", async () => {
    const response = await get('');
    expect(response.statusCode).toBe(200);
    const body = spfResponseSchema.parse(response.json());
    expect(body.limits).toEqual({ lookups: 10, voidLookups: 2 });
    expect(body.domains.map((d) => [d.domain, d.checked, d.lookups])).toEqual([
      ['good.test', true, 4],
      ['broken.test', false, 0],
    ]);
    expect(body.domains[1]!.failure).toBe('servfail');
  });

  it('checks one domain of the tenant’s when asked, and refuses another’s or a malformed one', async () => {
    const one = await get('?domain=GOOD.test');
    expect(one.statusCode).toBe(200);
    expect(one.json().domains.map((d: SpfDomain) => d.domain)).toEqual(['good.test']);
    const other = await get('?domain=open.test');
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/not one of your domains/),
    });
    const bad = await get(`?domain=${encodeURIComponent('bad name;')}`);
    expect(bad.statusCode).toBe(400);
    const long = await get(`?domain=${'a'.repeat(300)}.test`);
    expect(long.statusCode).toBe(400);
  });

  it('answers an empty list for a tenant without domains, and 403 to a plain user', async () => {
    const lonely = await get('', lonelyAdmin);
    expect(lonely.statusCode).toBe(200);
    expect(lonely.json().domains).toEqual([]);
    expect((await get('', user)).statusCode).toBe(403);
  });
});
