import { SESSION_COOKIE } from '@moat/contracts/current-user';
import {
  DMARC_API,
  dmarcAlertsResponseSchema,
  dnsChangesResponseSchema,
  dnsCheckResultSchema,
} from '@moat/contracts/dmarc';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, dmarcDaily, outbox, tenantDomains } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { dnsChangeResolver } from './dns-changes.service.ts';
import { lookup, namesOf, normalise, outcomeOf, usableSelectors } from './dns-changes.ts';
import { GOOGLE_REPORT } from './test-reports.ts';

describe('DNS Change-Log: the names asked and their answers normalised', () => {
  it('asks SPF and MX at the domain, DMARC, each known DKIM selector, MTA-STS and TLS-RPT', () => {
    expect(
      namesOf('Acme.Test.', ['s1', 'S1', 'bad name', '', 'k.2']).map(
        (n) => `${n.kind} ${n.rrtype} ${n.name}`,
      ),
    ).toEqual([
      'spf TXT acme.test',
      'dmarc TXT _dmarc.acme.test',
      'dkim TXT k.2._domainkey.acme.test',
      'dkim TXT s1._domainkey.acme.test',
      'mx MX acme.test',
      'mta_sts TXT _mta-sts.acme.test',
      'tls_rpt TXT _smtp._tls.acme.test',
    ]);
    expect(usableSelectors(Array.from({ length: 30 }, (_, i) => `s${i}`))).toHaveLength(20);
  });

  it('joins TXT strings, evens spacing, keeps only the record kind asked and sorts, so a re-split record is unchanged', () => {
    const [spf, , dkim, mx] = namesOf('acme.test', ['s1']);
    const once = normalise(spf!, [
      ['v=spf1 ip4:192.0.2.1 ', 'include:a.test -all'],
      ['google-site-verification=x'],
    ]);
    const again = normalise(spf!, [['v=spf1  ip4:192.0.2.1 include:a.test', ' -all']]);
    expect(once).toBe('v=spf1 ip4:192.0.2.1 include:a.test -all');
    expect(again).toBe(once);
    expect(normalise(spf!, [['google-site-verification=x']])).toBeNull();
    expect(normalise(dkim!, [['v=DKIM1; k=rsa; ', 'p=MIIB']])).toBe('v=DKIM1; k=rsa; p=MIIB');
    const a = normalise(mx!, [
      { priority: 20, exchange: 'MX2.acme.test.' },
      { priority: 10, exchange: 'mx1.acme.test' },
    ]);
    const b = normalise(mx!, [
      { priority: 10, exchange: 'mx1.acme.test' },
      { priority: 20, exchange: 'mx2.acme.test' },
    ]);
    expect(a).toBe('10 mx1.acme.test\n20 mx2.acme.test');
    expect(b).toBe(a);
  });

  it('reads "no such name" as no record, and a failed lookup as no answer that changes nothing', async () => {
    const [spf] = namesOf('acme.test');
    const fail = (code: string) => () => Promise.reject(Object.assign(new Error(code), { code }));
    expect(await lookup(fail('ENOTFOUND'), spf!)).toEqual({ ok: true, value: null });
    expect(await lookup(fail('ETIMEOUT'), spf!)).toEqual({ ok: false, failure: 'timeout' });
    expect(await lookup(fail('ESERVFAIL'), spf!)).toEqual({ ok: false, failure: 'servfail' });
    expect(outcomeOf(false, null, { ok: true, value: 'v=spf1 -all' })).toEqual({
      type: 'first',
      value: 'v=spf1 -all',
    });
    expect(outcomeOf(true, 'v=spf1 -all', { ok: true, value: 'v=spf1 -all' })).toEqual({ type: 'unchanged' });
    expect(outcomeOf(true, 'v=spf1 -all', { ok: false, failure: 'timeout' })).toEqual({
      type: 'failed',
      failure: 'timeout',
    });
    expect(outcomeOf(true, 'v=spf1 -all', { ok: true, value: null })).toEqual({
      type: 'changed',
      before: 'v=spf1 -all',
      after: null,
    });
  });
});

describe('DNS Change-Log and DMARC alerts over real DNS (loopback)', () => {
  const zone: TestZone = {
    'acme.test': {
      TXT: [['v=spf1 include:_spf.provider.test ', '-all'], ['google-site-verification=abc']],
      MX: [
        { priority: 20, exchange: 'mx2.acme.test' },
        { priority: 10, exchange: 'mx1.acme.test' },
      ],
    },
    '_dmarc.acme.test': { TXT: [['v=DMARC1; p=none; rua=mailto:dmarc@acme.test']] },
    's1._domainkey.acme.test': { TXT: [['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA']] },
    '_mta-sts.acme.test': { TXT: [['v=STSv1; id=20260101']] },
    '_smtp._tls.acme.test': { TXT: [['v=TLSRPTv1; rua=mailto:tls@acme.test']] },
    'quiet.test': { fail: 'servfail' },
    '_dmarc.quiet.test': { fail: 'servfail' },
    '_mta-sts.quiet.test': { fail: 'servfail' },
    '_smtp._tls.quiet.test': { fail: 'servfail' },
  };
  const clock = new ManualClock('2025-12-10T09:00:00Z');
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let admin: Record<string, string>;
  let user: Record<string, string>;
  let tenantId: string;

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    t = await buildTestApp({ clock, env: { DNS_SERVERS: dns.address, DMARC_DNS_POLL_MINUTES: '60' } });
    const tenant = await buildTenant(t.db, { domain: 'acme.test' });
    tenantId = tenant.id;
    await t.db.insert(tenantDomains).values({ tenantId, domain: 'quiet.test' });
    const a = await buildUser(t.db, tenantId, { email: 'admin@acme.test', role: 'admin' });
    admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
    const u = await buildUser(t.db, tenantId, { email: 'ana@acme.test' });
    user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
    // A report names the DKIM selector s1 of acme.test (and k1 of another domain, not polled).
    const uploaded = await t.app.inject({
      method: 'POST',
      url: DMARC_API.reports,
      headers: { ...admin, 'content-type': 'application/xml' },
      payload: GOOGLE_REPORT,
    });
    expect(uploaded.statusCode).toBe(201);
  });
  afterAll(async () => {
    await t.close();
    await dns.close();
  });

  const check = (headers = admin) => t.app.inject({ method: 'POST', url: DMARC_API.dnsCheck, headers });
  const view = async (query = '') => {
    const response = await t.app.inject({
      method: 'GET',
      url: `${DMARC_API.dnsChanges}${query}`,
      headers: admin,
    });
    expect(response.statusCode).toBe(200);
    return dnsChangesResponseSchema.parse(response.json());
  };
  const alerts = async () => {
    const response = await t.app.inject({ method: 'GET', url: DMARC_API.alerts, headers: admin });
    expect(response.statusCode).toBe(200);
    return dmarcAlertsResponseSchema.parse(response.json());
  };
  const mails = (kind: string) =>
    t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.tenantId, tenantId), like(outbox.kind, kind)));

  it('reads every record on the first check as first seen, with no alert; a second check at once is refused', async () => {
    const first = await check();
    expect(first.statusCode).toBe(200);
    expect(dnsCheckResultSchema.parse(first.json())).toMatchObject({ domains: 2, changed: 0 });
    const body = await view();
    expect(body.pollMinutes).toBe(60);
    const acme = body.records.filter((r) => r.domain === 'acme.test');
    expect(acme.map((r) => [r.kind, r.name, r.value])).toEqual([
      ['dkim', 's1._domainkey.acme.test', 'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'],
      ['dmarc', '_dmarc.acme.test', 'v=DMARC1; p=none; rua=mailto:dmarc@acme.test'],
      ['mta_sts', '_mta-sts.acme.test', 'v=STSv1; id=20260101'],
      ['mx', 'acme.test', '10 mx1.acme.test\n20 mx2.acme.test'],
      ['spf', 'acme.test', 'v=spf1 include:_spf.provider.test -all'],
      ['tls_rpt', '_smtp._tls.acme.test', 'v=TLSRPTv1; rua=mailto:tls@acme.test'],
    ]);
    expect(acme.find((r) => r.kind === 'dkim')?.selector).toBe('s1');
    expect(acme.every((r) => r.known && r.changedAt === null && r.failure === null)).toBe(true);
    // A domain whose server fails: nothing known yet, and said so.
    const quiet = body.records.filter((r) => r.domain === 'quiet.test');
    expect(quiet.length).toBeGreaterThan(0);
    expect(quiet.every((r) => !r.known && r.failure === 'servfail' && r.value === null)).toBe(true);
    expect(body.changes.items.every((c) => c.first)).toBe(true);
    expect(body.changes.total).toBe(6);
    expect((await alerts()).items).toEqual([]);
    expect(await mails('alert_dmarc%')).toEqual([]);

    const again = await check();
    expect(again.statusCode).toBe(429);
    expect(again.json()).toMatchObject({ code: 'rate_limited' });
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'dmarc.dns_checked')));
    expect(audited).toHaveLength(1);
  });

  it('logs a changed record with its before and after and emails the admins once; a re-split or reordered answer is no change', async () => {
    zone['_dmarc.acme.test'] = { TXT: [['v=DMARC1; p=reject; ', 'rua=mailto:dmarc@acme.test']] };
    zone['acme.test']!.TXT = [
      ['google-site-verification=abc'],
      ['v=spf1 include:_spf.provider.test', ' -all'],
    ];
    zone['acme.test']!.MX = [
      { priority: 10, exchange: 'mx1.acme.test' },
      { priority: 20, exchange: 'mx2.acme.test.' },
    ];
    clock.advance(31_000);
    const response = await check();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ changed: 1 });
    const body = await view('?domain=acme.test&kind=dmarc');
    expect(body.changes.items[0]).toMatchObject({
      domain: 'acme.test',
      kind: 'dmarc',
      name: '_dmarc.acme.test',
      before: 'v=DMARC1; p=none; rua=mailto:dmarc@acme.test',
      after: 'v=DMARC1; p=reject; rua=mailto:dmarc@acme.test',
      first: false,
    });
    expect(body.records).toHaveLength(1);
    expect(body.records[0]!.changedAt).toBe(clock.now().toISOString());
    const list = await alerts();
    expect(list.items).toEqual([
      expect.objectContaining({
        kind: 'dmarc_record_changed',
        domain: 'acme.test',
        emailed: true,
        record: {
          kind: 'dmarc',
          name: '_dmarc.acme.test',
          before: 'v=DMARC1; p=none; rua=mailto:dmarc@acme.test',
          after: 'v=DMARC1; p=reject; rua=mailto:dmarc@acme.test',
        },
      }),
    ]);
    const sent = await mails('alert_dmarc_record_changed');
    expect(sent.map((m) => m.toAddress)).toEqual(['admin@acme.test']);
    const mail = sent[0]!;
    expect(mail.subject).toContain('A DNS record of acme[.]test changed');
    expect(mail.text).toContain('The DMARC record of acme[.]test changed');
    expect(mail.text).toContain('Before: v=DMARC1; p=none; rua=mailto:dmarc@acme[.]test');
    expect(mail.text).toContain('After: v=DMARC1; p=reject; rua=mailto:dmarc@acme[.]test');
    // The only link is the console's.
    expect(mail.html.match(/href="[^"]*"/g)).toEqual([expect.stringContaining('/dmarc/spf-dmarc-changes')]);

    // Polled again with nothing changed: no new change, no second alert.
    clock.advance(31_000);
    expect((await check()).json()).toMatchObject({ changed: 0 });
    expect(await mails('alert_dmarc_record_changed')).toHaveLength(1);
  });

  it('keeps the last value when a lookup fails (no change, no alert) and says the poll failed', async () => {
    zone['_dmarc.acme.test'] = { fail: 'timeout' };
    clock.advance(31_000);
    const response = await check();
    expect(response.json()).toMatchObject({ changed: 0 });
    expect(response.json().failed).toBeGreaterThanOrEqual(1);
    const record = (await view('?domain=acme.test&kind=dmarc')).records[0]!;
    expect(record).toMatchObject({
      value: 'v=DMARC1; p=reject; rua=mailto:dmarc@acme.test',
      failure: 'timeout',
      known: true,
    });
    // Back: the failure is cleared, still no change.
    zone['_dmarc.acme.test'] = { TXT: [['v=DMARC1; p=reject; rua=mailto:dmarc@acme.test']] };
    clock.advance(31_000);
    expect((await check()).json()).toMatchObject({ changed: 0 });
    expect((await view('?domain=acme.test&kind=dmarc')).records[0]!.failure).toBeNull();
    expect((await alerts()).items).toHaveLength(1);
  });

  it('polls in the sweep only the domains due, and raises a new failing source and a pass-rate drop once each', async () => {
    // Everything was just polled: nothing is due.
    expect(await t.app.services.dnsChanges.pollDue()).toEqual({ polled: 0, alerts: 0 });
    const day = (daysAgo: number) =>
      new Date(clock.now().getTime() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const rows = [];
    // 30 days of good mail from one source, then a bad week, and a new source failing.
    for (let ago = 36; ago >= 7; ago--)
      rows.push({
        tenantId,
        domain: 'acme.test',
        day: day(ago),
        sourceIp: '192.0.2.10',
        messages: 100,
        passed: 98,
        reports: 1,
      });
    for (let ago = 6; ago >= 0; ago--)
      rows.push({
        tenantId,
        domain: 'acme.test',
        day: day(ago),
        sourceIp: '192.0.2.10',
        messages: 100,
        passed: 70,
        reports: 1,
      });
    rows.push({
      tenantId,
      domain: 'acme.test',
      day: day(1),
      sourceIp: '198.51.100.77',
      messages: 40,
      passed: 0,
      reports: 1,
    });
    // A known source failing is not new; a new one failing little is not told.
    rows.push({
      tenantId,
      domain: 'acme.test',
      day: day(20),
      sourceIp: '192.0.2.99',
      messages: 5,
      passed: 5,
      reports: 1,
    });
    rows.push({
      tenantId,
      domain: 'acme.test',
      day: day(2),
      sourceIp: '192.0.2.99',
      messages: 50,
      passed: 0,
      reports: 1,
    });
    rows.push({
      tenantId,
      domain: 'acme.test',
      day: day(2),
      sourceIp: '203.0.113.200',
      messages: 3,
      passed: 0,
      reports: 1,
    });
    await t.db.insert(dmarcDaily).values(rows);

    clock.advance(61 * 60_000);
    const pass = await t.app.services.dnsChanges.pollDue();
    expect(pass.polled).toBe(2);
    expect(pass.alerts).toBe(2);
    const list = (await alerts()).items;
    expect(list.find((a) => a.kind === 'dmarc_new_failing_source')).toMatchObject({
      domain: 'acme.test',
      source: { ip: '198.51.100.77', failed: 40, messages: 40 },
      emailed: true,
    });
    const drop = list.find((a) => a.kind === 'dmarc_pass_rate_drop');
    expect(drop?.passRate?.recent).toBeLessThan(drop!.passRate!.prior - 10);
    const source = (await mails('alert_dmarc_new_failing_source'))[0]!;
    expect(source.text).toContain('The server at 198[.]51[.]100[.]77 sent 40 messages as acme[.]test');
    const rate = (await mails('alert_dmarc_pass_rate_drop'))[0]!;
    expect(rate.subject).toContain('The DMARC pass rate of acme[.]test dropped');

    // The next pass tells none of them again.
    clock.advance(61 * 60_000);
    expect((await t.app.services.dnsChanges.pollDue()).alerts).toBe(0);
    expect(await mails('alert_dmarc_new_failing_source')).toHaveLength(1);
  });

  it('records alerts without emailing when the admins turned DMARC alert emails off', async () => {
    const off = await t.app.inject({
      method: 'PUT',
      url: DMARC_API.alertSettings,
      headers: admin,
      payload: { email: false },
    });
    expect(off.statusCode).toBe(200);
    expect((await alerts()).email).toBe(false);
    zone['_mta-sts.acme.test'] = { TXT: [['v=STSv1; id=20260202']] };
    clock.advance(31_000);
    expect((await check()).json()).toMatchObject({ changed: 1 });
    const changed = (await alerts()).items.filter((a) => a.kind === 'dmarc_record_changed');
    expect(changed.map((a) => [a.record?.kind, a.emailed])).toEqual([
      ['mta_sts', false],
      ['dmarc', true],
    ]);
    expect(await mails('alert_dmarc_record_changed')).toHaveLength(1);
    const bad = await t.app.inject({
      method: 'PUT',
      url: DMARC_API.alertSettings,
      headers: admin,
      payload: { email: 'no' },
    });
    expect(bad.statusCode).toBe(400);
  });

  it('refuses a bad filter with 400, and every route to a plain user with 403', async () => {
    for (const query of ['?kind=txt', '?days=0', '?domain=bad%20name', '?limit=1000'])
      expect(
        (await t.app.inject({ method: 'GET', url: `${DMARC_API.dnsChanges}${query}`, headers: admin }))
          .statusCode,
      ).toBe(400);
    expect((await view('?domain=quiet.test')).records.every((r) => r.domain === 'quiet.test')).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: DMARC_API.dnsChanges, headers: user })).statusCode).toBe(
      403,
    );
    expect((await t.app.inject({ method: 'GET', url: DMARC_API.alerts, headers: user })).statusCode).toBe(
      403,
    );
    expect((await check(user)).statusCode).toBe(403);
  });

  it('asks the loopback server with the resolver the app uses', async () => {
    const resolve = dnsChangeResolver([dns.address]);
    const [, dmarc] = namesOf('acme.test');
    expect(await lookup(resolve, dmarc!)).toEqual({
      ok: true,
      value: 'v=DMARC1; p=reject; rua=mailto:dmarc@acme.test',
    });
    expect(await lookup(resolve, { ...dmarc!, name: '_dmarc.nowhere.test' })).toEqual({
      ok: true,
      value: null,
    });
  });
});
