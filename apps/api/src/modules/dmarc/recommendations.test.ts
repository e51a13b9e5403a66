import { generateKeyPairSync } from 'node:crypto';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API, type DomainOverview, type Recommendation } from '@moat/contracts/dmarc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import type { UnalignedSource } from './recommendations.repo.ts';
import { recommend, THRESHOLDS, withTag } from './recommendations.ts';
import { arpaNameOf, createReverseNames } from './reverse-names.ts';
import { spfResolver } from './spf.service.ts';
import { GOOGLE_REPORT } from './test-reports.ts';

const ADDRESS = 'dmarc-reports@acme.test';
const RSA_2048 = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .publicKey.export({ format: 'der', type: 'spki' })
  .toString('base64');

/** A domain's Overview over `days` days, each with `perDay` messages of which `passedPerDay` passed. */
function overview(
  record: string | null,
  options: {
    days?: number;
    perDay?: number;
    passedPerDay?: number;
    status?: 'found' | 'missing' | 'unknown';
  } = {},
): DomainOverview {
  const days = options.days ?? 30;
  const perDay = options.perDay ?? 20;
  const passedPerDay = options.passedPerDay ?? perDay;
  const trend = Array.from({ length: days }, (_, i) => ({
    day: new Date(Date.UTC(2026, 10, 1 + i)).toISOString().slice(0, 10),
    messages: perDay,
    passed: passedPerDay,
  }));
  const status = options.status ?? (record ? 'found' : 'missing');
  return {
    domain: 'acme.test',
    reportAddress: ADDRESS,
    published: {
      status,
      record: status === 'found' ? record : null,
      policy: record?.match(/\bp=(\w+)/)?.[1] ?? null,
      reportsHere: record?.includes(ADDRESS) ?? false,
    },
    reportedPolicy: 'none',
    reports: perDay > 0 ? days : 0,
    messages: days * perDay,
    passed: days * passedPerDay,
    trend,
    topFailing: [],
  };
}

const unaligned = (messages: number, days: { day: string; messages: number }[] = []): UnalignedSource => ({
  domain: 'acme.test',
  sourceIp: '198.51.100.9',
  messages,
  spfDomains: ['bounces.crm.example'],
  dkimDomains: ['crm.example'],
  days,
});

const codes = (steps: Recommendation[]) => steps.map((s) => s.code);
const HERE = `v=DMARC1; p=none; rua=mailto:${ADDRESS}`;

describe('DMARC recommendations: the rules', () => {
  it('asks a domain without a record to publish one that starts the reports and changes nothing', () => {
    const [first] = recommend({ overview: overview(null, { perDay: 0 }), unaligned: [] }, 30);
    expect(first).toMatchObject({
      code: 'publish_record',
      severity: 'action',
      record: {
        name: '_dmarc.acme.test',
        value: `v=DMARC1; p=none; rua=mailto:${ADDRESS}; ruf=mailto:${ADDRESS}; fo=1`,
      },
    });
  });

  it('adds this address to a record that sends its reports elsewhere, keeping the others', () => {
    const steps = recommend(
      { overview: overview('v=DMARC1; p=none; rua=mailto:agg@vendor.example'), unaligned: [] },
      30,
    );
    expect(steps[0]).toMatchObject({ code: 'send_reports_here' });
    expect(steps[0]!.record!.value).toBe(
      `v=DMARC1; p=none; rua=mailto:agg@vendor.example,mailto:${ADDRESS}; ruf=mailto:${ADDRESS}`,
    );
  });

  it('proposes quarantine once the aligned share held in every week, and not before', () => {
    const ready = recommend({ overview: overview(HERE), unaligned: [] }, 30);
    expect(codes(ready)).toEqual(['move_to_quarantine']);
    expect(ready[0]!.record!.value).toBe(`v=DMARC1; p=quarantine; rua=mailto:${ADDRESS}`);

    // Too little mail, too few days: keep watching, with the figures that say why.
    const young = recommend({ overview: overview(HERE, { days: 10, perDay: 5 }), unaligned: [] }, 30);
    expect(codes(young)).toEqual(['keep_monitoring']);
    expect(young[0]!.params).toMatchObject({ next: 'quarantine', days: 10, minDays: THRESHOLDS.minDays });

    // 99 % over the month, but one week a real sender failed alignment on 30 % of the mail.
    const o = overview(HERE);
    const badWeek = o.trend.slice(-7).map((d) => ({ day: d.day, messages: 9 }));
    const steps = recommend({ overview: o, unaligned: [unaligned(63, badWeek)] }, 30);
    expect(codes(steps)).toEqual(['fix_source', 'keep_monitoring']);
    expect(steps[0]).toMatchObject({
      severity: 'warning',
      sourceIp: '198.51.100.9',
      params: { messages: 63, dkimDomains: 'crm.example', spfDomains: 'bounces.crm.example' },
    });
  });

  it('counts spoofed mail (authenticated by nobody) not against the domain', () => {
    // Half the mail fails DMARC, all of it unauthenticated: the domain's own mail is aligned.
    const steps = recommend(
      { overview: overview(HERE, { perDay: 40, passedPerDay: 20 }), unaligned: [] },
      30,
    );
    expect(codes(steps)).toEqual(['move_to_quarantine']);
    expect(steps[0]!.params.rate).toBe(100);
  });

  it('goes on from quarantine to all mail, then to reject, and says when it is done', () => {
    const half = recommend(
      { overview: overview(`v=DMARC1; p=quarantine; pct=50; rua=mailto:${ADDRESS}`), unaligned: [] },
      30,
    );
    expect(half[0]).toMatchObject({
      code: 'raise_pct',
      record: { value: `v=DMARC1; p=quarantine; rua=mailto:${ADDRESS}` },
    });
    const full = recommend(
      { overview: overview(`v=DMARC1; p=quarantine; rua=mailto:${ADDRESS}`), unaligned: [] },
      30,
    );
    expect(full[0]).toMatchObject({
      code: 'move_to_reject',
      record: { value: `v=DMARC1; p=reject; rua=mailto:${ADDRESS}` },
    });
    const done = recommend(
      { overview: overview(`v=DMARC1; p=reject; sp=none; rua=mailto:${ADDRESS}`), unaligned: [] },
      30,
    );
    expect(codes(done)).toEqual(['subdomain_policy', 'enforced']);
    expect(done[0]!.record!.value).toBe(`v=DMARC1; p=reject; sp=reject; rua=mailto:${ADDRESS}`);
  });

  it('makes a failing real sender urgent once the policy enforces (its mail is being lost)', () => {
    const steps = recommend(
      { overview: overview(`v=DMARC1; p=reject; rua=mailto:${ADDRESS}`), unaligned: [unaligned(40)] },
      30,
    );
    expect(steps[0]).toMatchObject({ code: 'fix_source', severity: 'action' });
  });

  it('names SPF and DKIM problems, and sets tags in place', () => {
    const steps = recommend(
      {
        overview: overview(HERE, { days: 3 }),
        unaligned: [],
        spf: {
          domain: 'acme.test',
          checked: true,
          failure: null,
          records: ['v=spf1 include:a include:b ~all'],
          lookups: 12,
          voidLookups: 0,
          complete: true,
          tree: null,
          problems: [
            {
              code: 'too_many_lookups',
              severity: 'error',
              domain: 'acme.test',
              term: null,
              count: 12,
              message: 'The record needs 12 DNS lookups; receivers stop at 10.',
            },
            {
              code: 'macro',
              severity: 'info',
              domain: 'acme.test',
              term: null,
              count: null,
              message: 'A macro.',
            },
          ],
          corrected: null,
        },
        dkim: [
          { selector: 'old', message: 'The key is RSA 1024 bits: rotate to 2048.', severity: 'warning' },
        ],
      },
      30,
    );
    expect(codes(steps)).toEqual(['spf_problem', 'dkim_problem', 'keep_monitoring']);
    expect(steps[0]!.params.message).toMatch(/12 DNS lookups/);
    expect(withTag('v=DMARC1;p=none;rua=mailto:a@b', 'p', 'reject')).toBe(
      'v=DMARC1; p=reject; rua=mailto:a@b',
    );
    expect(withTag('v=DMARC1; p=none', 'sp', 'none')).toBe('v=DMARC1; p=none; sp=none');
  });
});

describe('reverse names', () => {
  it('names the arpa names of IPv4 and IPv6 addresses, and refuses what is not one', () => {
    expect(arpaNameOf('203.0.113.25')).toBe('25.113.0.203.in-addr.arpa');
    expect(arpaNameOf('2001:db8::7')).toBe(`7.0.0.0.${'0.'.repeat(20)}8.b.d.0.1.0.0.2.ip6.arpa`);
    expect(arpaNameOf('example.com')).toBeNull();
  });

  it('asks DNS once per address and keeps the answer, a name or none', async () => {
    const dns = await startDnsServer({ '25.113.0.203.in-addr.arpa': { PTR: ['mail.acme.test.'] } });
    let asked = 0;
    const real = spfResolver([dns.address], { timeoutMs: 300, tries: 1 });
    const names = createReverseNames({
      resolve: (name, type) => {
        asked++;
        return real(name, type as never);
      },
    });
    try {
      expect(await names.namesOf(['203.0.113.25', '198.51.100.1', 'nonsense'])).toEqual({
        '203.0.113.25': 'mail.acme.test',
        '198.51.100.1': null,
        nonsense: null,
      });
      await names.namesOf(['203.0.113.25', '198.51.100.1']);
      expect(asked).toBe(2);
    } finally {
      await dns.close();
    }
  });
});

describe('DMARC recommendations and reverse names over HTTP', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  const zone: TestZone = {
    '_dmarc.acme.test': { TXT: [[`v=DMARC1; p=none; rua=mailto:${ADDRESS}`]] },
    'acme.test': { TXT: [['v=spf1 ip4:203.0.113.0/24 -all']] },
    '25.113.0.203.in-addr.arpa': { PTR: ['mail.acme.test'] },
    // The key the reports' selector s1 signs with: strong, so DKIM has nothing to say.
    // (A TXT string holds at most 255 bytes: the record comes in pieces, as DNS hosts publish it.)
    's1._domainkey.acme.test': { TXT: [`v=DKIM1; k=rsa; p=${RSA_2048}`.match(/.{1,255}/g)!] },
  };

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    t = await buildTestApp({ env: { DNS_SERVERS: dns.address } });
    const tenant = await buildTenant(t.db, { domain: 'acme.test' });
    const a = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
    admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
    const u = await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
    user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
    // A report a day for the last 16 days: 42 aligned messages, 3 signed by mailer.example only.
    const today = Math.floor(Date.now() / 86_400_000);
    for (let back = 1; back <= 16; back++) {
      const day = today - back;
      const xml = GOOGLE_REPORT.replace(
        '<report_id>4312398455187346520</report_id>',
        `<report_id>r-${day}</report_id>`,
      ).replace(
        '<begin>1764633600</begin><end>1764719999</end>',
        `<begin>${day * 86_400}</begin><end>${day * 86_400 + 86_399}</end>`,
      );
      const sent = await t.app.inject({
        method: 'POST',
        url: DMARC_API.reports,
        headers: { ...admin, 'content-type': 'application/xml' },
        payload: xml,
      });
      expect(sent.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  it('names the unaligned sender to fix and says why the domain is not ready for quarantine', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: DMARC_API.recommendations,
      headers: admin,
      query: { days: '30' },
    });
    expect(res.statusCode).toBe(200);
    const [acme] = res.json().domains;
    expect(acme).toMatchObject({ domain: 'acme.test', policy: 'none', messages: 16 * 45, alignedRate: 93.3 });
    expect(codes(acme.recommendations)).toEqual(['fix_source', 'keep_monitoring']);
    expect(acme.recommendations[0]).toMatchObject({
      sourceIp: '2001:db8::7',
      params: { messages: 48, dkimDomains: 'mailer.example', spfDomains: '' },
    });
    expect(acme.recommendations[1].params).toMatchObject({ next: 'quarantine', rate: 93.3, days: 16 });
  });

  it('keeps the page, without SPF steps, when the SPF lookup fails', async () => {
    zone['acme.test'] = { fail: 'servfail' };
    try {
      const res = await t.app.inject({
        method: 'GET',
        url: DMARC_API.recommendations,
        headers: admin,
        query: { days: '7' },
      });
      expect(res.statusCode).toBe(200);
      const steps: Recommendation[] = res.json().domains[0].recommendations;
      expect(steps.map((s) => s.code)).toEqual(['fix_source', 'keep_monitoring']);
    } finally {
      zone['acme.test'] = { TXT: [['v=spf1 ip4:203.0.113.0/24 -all']] };
    }
  });

  it('gives the reverse names of the sources asked, refuses bad addresses, and is for admins only', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: `${DMARC_API.reverse}?ip=203.0.113.25&ip=2001:db8::7`,
      headers: admin,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ names: { '203.0.113.25': 'mail.acme.test', '2001:db8::7': null } });
    const bad = await t.app.inject({
      method: 'GET',
      url: `${DMARC_API.reverse}?ip=example.com`,
      headers: admin,
    });
    expect(bad.statusCode).toBe(400);
    const none = await t.app.inject({ method: 'GET', url: DMARC_API.reverse, headers: admin });
    expect(none.statusCode).toBe(400);
    const many = `${DMARC_API.reverse}?${Array.from({ length: 51 }, (_, i) => `ip=192.0.2.${i}`).join('&')}`;
    expect((await t.app.inject({ method: 'GET', url: many, headers: admin })).statusCode).toBe(400);
    expect(
      (await t.app.inject({ method: 'GET', url: DMARC_API.recommendations, headers: user })).statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'GET', url: `${DMARC_API.reverse}?ip=203.0.113.25`, headers: user }))
        .statusCode,
    ).toBe(403);
  });
});
