import net from 'node:net';
import { API } from '@moat/contracts/api-paths';
import { ONBOARDING_API } from '@moat/contracts/onboarding';
import { and, eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, tenantDomains, tenants } from '../../db/schema.ts';
import { systemActor } from '../../lib/actor.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildSession, buildUser } from '../../test/factories.ts';
import { type OnboardingResolver, systemResolver } from './onboarding.service.ts';

/**
 * DNS as the test publishes it, served over UDP by a local DNS server and asked by Moat's own
 * resolver (bounded tighter than in production, so that a name the server leaves unanswered
 * times out within the test); a name can fail for real (SERVFAIL, or no answer).
 */
const zone: TestZone = {};
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let resolver: OnboardingResolver;

/** A mail server (the organisation's next hop) that keeps what it accepts; `no-such@` is refused. */
const received: Array<{ from: string; to: string[]; data: string }> = [];
let hop: SMTPServer;
let hopPort: number;

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  dns = await startDnsServer(zone);
  resolver = systemResolver([dns.address], { timeoutMs: 300, tries: 1 });
  hop = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('no-such@')) {
        return callback(Object.assign(new Error('5.1.1 User unknown'), { responseCode: 550 }));
      }
      callback();
    },
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => {
        data += chunk.toString();
      });
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => hop.listen(0, '127.0.0.1', resolve));
  hopPort = (hop.server.address() as net.AddressInfo).port;
  t = await buildTestApp({
    // The organisation's mail server runs beside Moat here (loopback): a single-organisation deployment.
    env: { SMTP_HOSTNAME: 'mx.moat.example.test', SMTP_PORT: '2525', NEXT_HOP_NETWORKS: 'any' },
    onboardingResolver: resolver,
  });
});
afterAll(async () => {
  await t.close();
  await dns.close();
  await new Promise<void>((resolve) => hop.close(() => resolve()));
});

let n = 0;
/** An admin of a new organisation that has not been set up yet. */
async function newOrganisation() {
  const domain = `onb${++n}${Date.now()}.test`;
  const me = await signedInAs(t.app, t.db, {
    tenant: { domain, onboardedAt: null } as never,
    user: { email: `boss@${domain}` },
  });
  const post = (url: string, payload: object = {}) => me.send('POST', url, payload);
  const put = (url: string, payload: object) => me.send('PUT', url, payload);
  const audited = (action: string) =>
    t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, me.tenant.id), eq(auditLog.action, action)));
  return { ...me, domain, post, put, audited };
}

describe('who is led to onboarding', () => {
  it("leads a new organisation's admins there until one finishes it, and never its plain users", async () => {
    const org = await newOrganisation();
    expect((await org.get(API.currentUser)).json().on_boarding_required).toBe(true);
    const plain = await buildUser(t.db, org.tenant.id, { email: `pat@${org.domain}` });
    const { token } = await buildSession(t.db, plain);
    const asPlain = { cookies: { moat_session: token } };
    const plainView = await t.app.inject({ method: 'GET', url: API.currentUser, cookies: asPlain.cookies });
    expect(plainView.json().on_boarding_required).toBe(false);
    // A plain user cannot finish it (or read it) for the admins.
    const refused = await t.app.inject({
      method: 'POST',
      url: ONBOARDING_API.complete,
      cookies: asPlain.cookies,
      headers: CSRF,
    });
    expect(refused.statusCode).toBe(403);

    const done = await org.post(ONBOARDING_API.complete);
    expect(done.statusCode).toBe(200);
    expect(done.json().onboarded).toBe(true);
    expect((await org.get(API.currentUser)).json().on_boarding_required).toBe(false);
    // Once: a second call changes and audits nothing.
    await org.post(ONBOARDING_API.complete);
    expect(await org.audited('onboarding.complete')).toHaveLength(1);
  });

  it('refuses anyone signed out', async () => {
    const res = await t.app.inject({ method: 'GET', url: ONBOARDING_API.onboarding });
    expect([401, 403]).toContain(res.statusCode);
  });
});

describe('domains', () => {
  it('adds a domain pending until its TXT record proves it, then the gateway takes it (audited)', async () => {
    const org = await newOrganisation();
    const state = await org.get(ONBOARDING_API.onboarding);
    expect(state.json()).toEqual({
      onboarded: false,
      name: org.tenant.name,
      domains: [org.domain],
      mx_host: 'mx.moat.example.test',
      mx_host_usable: true,
      next_hop: null,
      deployment_relay: false,
      pending_domains: [],
    });
    const added = await org.post(ONBOARDING_API.domains, { domain: `Mail.${org.domain}` });
    expect(added.statusCode).toBe(200);
    const mail = `mail.${org.domain}`;
    expect(added.json().domains).toEqual([org.domain]);
    const [pending] = added.json().pending_domains;
    expect(pending.domain).toBe(mail);
    expect(pending.record).toMatch(
      new RegExp(`^${mail.replaceAll('.', '\\.')}\\. TXT "moat-verification=[0-9a-f]{32}"$`),
    );
    expect(await org.audited('onboarding.domain_requested')).toHaveLength(1);
    // Asked again: the same record stays valid.
    expect((await org.post(ONBOARDING_API.domains, { domain: mail })).json().pending_domains).toEqual([
      pending,
    ]);

    const early = await org.post(ONBOARDING_API.verifyDomain, { domain: mail });
    expect(early.statusCode).toBe(409);
    expect(early.json().message).toContain('No TXT record "moat-verification=');
    // Not yet the organisation's: the gateway does not take its mail.
    expect(await t.db.select().from(tenantDomains).where(eq(tenantDomains.domain, mail))).toEqual([]);

    const token = /"(moat-verification=[0-9a-f]+)"/.exec(pending.record)![1]!;
    zone[mail] = { TXT: [['v=spf1 -all'], [token]] };
    const verified = await org.post(ONBOARDING_API.verifyDomain, { domain: mail });
    expect(verified.statusCode).toBe(200);
    expect(verified.json().domains.sort()).toEqual([org.domain, mail].sort());
    expect(verified.json().pending_domains).toEqual([]);
    expect(await org.audited('tenant.domain_add')).toHaveLength(1);
  });

  it("refuses a bad domain, the deployment's own, one already theirs or another organisation's, changing nothing", async () => {
    const org = await newOrganisation();
    for (const domain of ['not a domain', 'x', '-bad-.test', `${'a'.repeat(300)}.test`]) {
      expect((await org.post(ONBOARDING_API.domains, { domain })).statusCode, domain).toBe(400);
    }
    // SMTP_HOSTNAME is mx.moat.example.test: it, its parents and its subdomains are the deployment's.
    for (const domain of ['moat.example.test', 'example.test', 'x.mx.moat.example.test']) {
      const res = await org.post(ONBOARDING_API.domains, { domain });
      expect(res.statusCode, domain).toBe(400);
      expect(res.json().message).toContain('belongs to this Moat deployment');
    }
    expect((await org.post(ONBOARDING_API.domains, { domain: org.domain })).statusCode).toBe(409);
    const other = await newOrganisation();
    const taken = await other.post(ONBOARDING_API.domains, { domain: org.domain });
    expect(taken.statusCode).toBe(409);
    // Whose it is stays unsaid.
    expect(taken.json().message).toBe(
      `${org.domain} cannot be added here. If it is yours, ask your provider.`,
    );
    const after = (await other.get(ONBOARDING_API.onboarding)).json();
    expect(after.domains).toEqual([other.domain]);
    expect(after.pending_domains).toEqual([]);
    expect((await org.post(ONBOARDING_API.verifyDomain, { domain: 'nothing.pending.test' })).statusCode).toBe(
      404,
    );
  });
});

describe('two organisations taking one domain at once', () => {
  it('gives it to one, and the other a 409, never a 500', async () => {
    const [a, b] = [await newOrganisation(), await newOrganisation()];
    const domain = `race${Date.now()}.test`;
    const results = await Promise.allSettled(
      [a, b].map((org) => t.app.services.tenants.addDomain(org.tenant.id, domain, systemActor)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [refused] = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
    expect(refused!.reason).toMatchObject({ statusCode: 409 });
  });
});

describe('DNS check', () => {
  it('says all is well when the MX names Moat, SPF ends in -all and DMARC rejects', async () => {
    const org = await newOrganisation();
    zone[org.domain] = {
      MX: [
        { exchange: 'MX.moat.example.test.', priority: 10 },
        { exchange: 'backup.example.net', priority: 20 },
      ],
      TXT: [['v=spf1 ip4:192.0.2.1 ', '-all'], ['google-site-verification=abc']],
    };
    zone[`_dmarc.${org.domain}`] = { TXT: [['v=DMARC1; p=reject; rua=mailto:d@', org.domain]] };
    const res = await org.post(ONBOARDING_API.dnsCheck, { domain: org.domain });
    expect(res.statusCode).toBe(200);
    const checks = res.json().checks;
    expect(checks.map((c: { status: string }) => c.status)).toEqual(['ok', 'ok', 'ok']);
    expect(checks[0].found).toEqual(['10 mx.moat.example.test', '20 backup.example.net']);
    expect(checks[1].found).toEqual(['v=spf1 ip4:192.0.2.1 -all']);
    expect(checks[2].advice).toContain('p=reject');
  });

  it('names what is missing with the record to publish', async () => {
    const org = await newOrganisation();
    const res = await org.post(ONBOARDING_API.dnsCheck, { domain: org.domain.toUpperCase() });
    const [mx, spf, dmarc] = res.json().checks;
    expect(mx).toMatchObject({ status: 'missing', suggested: `${org.domain}. MX 10 mx.moat.example.test.` });
    expect(spf).toMatchObject({ status: 'missing', suggested: `${org.domain}. TXT "v=spf1 mx -all"` });
    expect(dmarc.status).toBe('missing');
    expect(dmarc.suggested).toContain(`_dmarc.${org.domain}. TXT "v=DMARC1; p=quarantine`);
  });

  it('warns of mail that skips Moat, two SPF records, +all and a DMARC policy that only reports', async () => {
    const org = await newOrganisation();
    zone[org.domain] = {
      MX: [
        { exchange: 'mail.protection.outlook.com', priority: 0 },
        { exchange: 'mx.moat.example.test', priority: 10 },
      ],
      TXT: [['v=spf1 +all'], ['v=spf1 mx -all']],
    };
    zone[`_dmarc.${org.domain}`] = { TXT: [['v=DMARC1; p=none']] };
    const [mx, spf, dmarc] = (await org.post(ONBOARDING_API.dnsCheck, { domain: org.domain })).json().checks;
    expect(mx.status).toBe('warning');
    expect(mx.advice).toContain('mail.protection.outlook.com before Moat');
    expect(spf.status).toBe('warning');
    expect(spf.advice).toContain('2 SPF records');
    expect(dmarc).toMatchObject({ status: 'warning' });
    expect(dmarc.advice).toContain('p=none');

    zone[org.domain] = { MX: [{ exchange: 'mx.moat.example.test', priority: 5 }], TXT: [['v=spf1 +all']] };
    const again = (await org.post(ONBOARDING_API.dnsCheck, { domain: org.domain })).json().checks;
    expect(again[0].status).toBe('ok');
    expect(again[1].advice).toContain('+all');
  });

  it('tells a record that could not be looked up (no answer, SERVFAIL) from a missing one, and checks only its own domains', async () => {
    const org = await newOrganisation();
    zone[org.domain] = { fail: 'timeout' };
    zone[`_dmarc.${org.domain}`] = { fail: 'servfail' };
    const [mx, spf, dmarc] = (await org.post(ONBOARDING_API.dnsCheck, { domain: org.domain })).json().checks;
    expect(mx).toMatchObject({
      status: 'error',
      advice: expect.stringContaining('Could not check: the DNS server did not answer in time'),
      suggested: null,
    });
    expect(spf).toMatchObject({ status: 'error', suggested: null });
    expect(dmarc).toMatchObject({
      status: 'error',
      advice: expect.stringContaining('answered with a failure (SERVFAIL)'),
    });
    // A name that does not exist is an answer: its records are missing.
    const gone = await newOrganisation();
    const statuses = (await gone.post(ONBOARDING_API.dnsCheck, { domain: gone.domain })).json().checks;
    expect(statuses.map((c: { status: string }) => c.status)).toEqual(['missing', 'missing', 'missing']);
    const other = await newOrganisation();
    expect((await other.post(ONBOARDING_API.dnsCheck, { domain: org.domain })).statusCode).toBe(404);
    expect((await other.post(ONBOARDING_API.dnsCheck, { domain: 'example.com' })).statusCode).toBe(404);
  });
});

describe('the checklist: what is still missing', () => {
  it('lists each record not right yet (missing, to change, not checked), a pending domain and the mail server; empty once all is right', async () => {
    const org = await newOrganisation();
    zone[org.domain] = { MX: [{ exchange: 'mx.moat.example.test', priority: 10 }], TXT: [['v=spf1 ~all']] };
    zone[`_dmarc.${org.domain}`] = { fail: 'servfail' };
    await org.post(ONBOARDING_API.domains, { domain: `new.${org.domain}` });
    const res = await org.get(ONBOARDING_API.checklist);
    expect(res.statusCode).toBe(200);
    expect(res.json().checks.map((c: { domain: string }) => c.domain)).toEqual([org.domain]);
    expect(res.json().missing).toEqual([
      { kind: 'pending_domain', domain: `new.${org.domain}`, record: null, status: null },
      { kind: 'record', domain: org.domain, record: 'dmarc', status: 'error' },
      { kind: 'mail_server', domain: null, record: null, status: null },
    ]);

    zone[`_dmarc.${org.domain}`] = { TXT: [['v=DMARC1; p=none']] };
    const reporting = (await org.get(ONBOARDING_API.checklist)).json().missing;
    expect(reporting).toContainEqual({
      kind: 'record',
      domain: org.domain,
      record: 'dmarc',
      status: 'warning',
    });

    // All made right: the records, the pending domain verified (its own records too), a mail server.
    zone[`_dmarc.${org.domain}`] = { TXT: [['v=DMARC1; p=reject']] };
    await org.put(ONBOARDING_API.nextHop, { next_hop: `127.0.0.1:${hopPort}` });
    const { record } = (await org.get(ONBOARDING_API.onboarding)).json().pending_domains[0];
    const token = /"(moat-verification=[0-9a-f]+)"/.exec(record)![1]!;
    zone[`new.${org.domain}`] = {
      TXT: [[token], ['v=spf1 mx -all']],
      MX: [{ exchange: 'mx.moat.example.test', priority: 10 }],
    };
    zone[`_dmarc.new.${org.domain}`] = { TXT: [['v=DMARC1; p=quarantine']] };
    expect((await org.post(ONBOARDING_API.verifyDomain, { domain: `new.${org.domain}` })).statusCode).toBe(
      200,
    );
    expect((await org.get(ONBOARDING_API.checklist)).json().missing).toEqual([]);
  });

  it('with an unreachable DNS server, nothing is missing-or-right: every record says it could not be checked', async () => {
    const closed = await startDnsServer({});
    const address = closed.address;
    await closed.close();
    const other = await buildTestApp({
      env: { SMTP_HOSTNAME: 'mx.moat.example.test' },
      onboardingResolver: systemResolver([address], { timeoutMs: 300, tries: 1 }),
    });
    try {
      const org = await signedInAs(other.app, other.db, {
        tenant: { domain: 'unreachable-dns.test' } as never,
        user: { email: 'boss@unreachable-dns.test' },
      });
      const checklist = (await org.get(ONBOARDING_API.checklist)).json();
      expect(checklist.checks[0].checks.map((c: { status: string }) => c.status)).toEqual([
        'error',
        'error',
        'error',
      ]);
      expect(checklist.checks[0].checks[0].advice).toContain(
        'Could not check: no DNS server could be reached',
      );
      expect(checklist.missing.filter((m: { kind: string }) => m.kind === 'record')).toHaveLength(3);
    } finally {
      await other.close();
    }
  });
});

describe('a gateway whose host name is a bare machine name', () => {
  it('asks for SMTP_HOSTNAME instead of offering an MX record that names no real host', async () => {
    const other = await buildTestApp({ env: { SMTP_HOSTNAME: 'myhost' }, onboardingResolver: resolver });
    try {
      const org = await signedInAs(other.app, other.db, {
        tenant: { domain: 'bare-host.test' } as never,
        user: { email: 'boss@bare-host.test' },
      });
      zone['bare-host.test'] = { MX: [{ exchange: 'myhost', priority: 10 }] };
      const state = (await org.get(ONBOARDING_API.onboarding)).json();
      expect(state).toMatchObject({ mx_host: 'myhost', mx_host_usable: false });
      const [mx] = (await org.send('POST', ONBOARDING_API.dnsCheck, { domain: 'bare-host.test' })).json()
        .checks;
      expect(mx).toMatchObject({ status: 'error', suggested: null, found: ['10 myhost'] });
      expect(mx.advice).toContain('must set SMTP_HOSTNAME');
      expect(JSON.stringify(mx)).not.toContain('MX 10 myhost');
      const { missing } = (await org.get(ONBOARDING_API.checklist)).json();
      expect(missing).toContainEqual({ kind: 'gateway_name', domain: null, record: null, status: null });
    } finally {
      await other.close();
    }
  });
});

describe("the organisation's name", () => {
  it('is renamed in onboarding (audited), within its rules, by its admins only', async () => {
    const org = await newOrganisation();
    const renamed = await org.put(ONBOARDING_API.name, { name: '  Acme Holdings  ' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().name).toBe('Acme Holdings');
    const [row] = await t.db.select().from(tenants).where(eq(tenants.id, org.tenant.id));
    expect(row!.name).toBe('Acme Holdings');
    expect((await org.audited('tenant.renamed')).map((a) => a.details)).toEqual([
      { from: org.tenant.name, to: 'Acme Holdings' },
    ]);
    for (const name of ['', '   ', 'x'.repeat(201), 'bad\u0007name']) {
      const res = await org.put(ONBOARDING_API.name, { name });
      expect(res.statusCode, JSON.stringify(name)).toBe(400);
      expect(res.json().code).toBe('validation_error');
    }
    const plain = await buildUser(t.db, org.tenant.id, { email: `pat@${org.domain}` });
    const { token } = await buildSession(t.db, plain);
    const refused = await t.app.inject({
      method: 'PUT',
      url: ONBOARDING_API.name,
      cookies: { moat_session: token },
      headers: CSRF,
      payload: { name: 'Taken over' },
    });
    expect(refused.statusCode).toBe(403);
    expect((await org.get(ONBOARDING_API.onboarding)).json().name).toBe('Acme Holdings');
  });
});

describe('next hop and test message', () => {
  it('stores the mail server (audited), refuses a bad one or the gateway itself, and clears it', async () => {
    const org = await newOrganisation();
    for (const next_hop of ['mail.example.com:99999', 'http://mail.example.com', 'a b', '1.2.3', 'x:']) {
      const res = await org.put(ONBOARDING_API.nextHop, { next_hop });
      expect(res.statusCode, next_hop).toBe(400);
    }
    // The gateway itself, however written, is a loop; a link-local address (cloud metadata) is never a next hop.
    for (const next_hop of ['localhost:2525', '[::ffff:127.0.0.1]:2525', '127.0.0.2:2525']) {
      const loop = await org.put(ONBOARDING_API.nextHop, { next_hop });
      expect(loop.statusCode, next_hop).toBe(400);
      expect(loop.json().message).toContain("Moat's own gateway");
    }
    const metadata = await org.put(ONBOARDING_API.nextHop, { next_hop: '169.254.169.254:25' });
    expect(metadata.statusCode).toBe(400);
    expect(metadata.json().message).toContain('link-local');
    expect((await org.get(ONBOARDING_API.onboarding)).json().next_hop).toBeNull();

    // A name is resolved and each of its addresses judged (here the machine's own mail port).
    const set = await org.put(ONBOARDING_API.nextHop, { next_hop: ' LocalHost ' });
    expect(set.json().next_hop).toBe('localhost:25');
    const unknown = await org.put(ONBOARDING_API.nextHop, { next_hop: 'no-such-host.invalid' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().message).toContain('does not resolve');
    const v6 = await org.put(ONBOARDING_API.nextHop, { next_hop: '[2001:db8::25]:587' });
    expect(v6.json().next_hop).toBe('[2001:db8::25]:587');
    const [row] = await t.db.select().from(tenants).where(eq(tenants.id, org.tenant.id));
    expect(row!.nextHopUrl).toBe('smtp://[2001:db8::25]:587');
    expect((await org.put(ONBOARDING_API.nextHop, { next_hop: null })).json().next_hop).toBeNull();
    const changes = await org.audited('onboarding.next_hop');
    expect(changes.map((c) => c.details)).toEqual([
      { from: null, to: 'localhost:25' },
      { from: 'localhost:25', to: '[2001:db8::25]:587' },
      { from: '[2001:db8::25]:587', to: null },
    ]);
  });

  it("sends the test message through the organisation's mail server and says what it answered", async () => {
    const org = await newOrganisation();
    const noWay = await org.post(ONBOARDING_API.testMessage, { to: `boss@${org.domain}` });
    expect(noWay.statusCode).toBe(409);
    await org.put(ONBOARDING_API.nextHop, { next_hop: `127.0.0.1:${hopPort}` });
    const outside = await org.post(ONBOARDING_API.testMessage, { to: 'someone@example.com' });
    expect(outside.statusCode).toBe(400);

    const sent = await org.post(ONBOARDING_API.testMessage, { to: `boss@${org.domain}` });
    expect(sent.statusCode).toBe(200);
    expect(sent.json()).toMatchObject({ delivered: true, via: `127.0.0.1:${hopPort}` });
    const mail = received.find((m) => m.to.includes(`boss@${org.domain}`));
    expect(mail?.data).toContain('Subject: Moat test message');

    const refused = await org.post(ONBOARDING_API.testMessage, { to: `no-such@${org.domain}` });
    expect(refused.json()).toMatchObject({ delivered: false });
    expect(refused.json().response).toContain('550');

    // A server that is not there: the refusal of the connection, said at once.
    await org.put(ONBOARDING_API.nextHop, { next_hop: '127.0.0.1:1' });
    const down = await org.post(ONBOARDING_API.testMessage, { to: `boss@${org.domain}` });
    expect(down.json()).toMatchObject({ delivered: false });
    expect(down.json().response).toContain('ECONNREFUSED');
    // Not a mail server (it answers, but not SMTP): what it sent is not echoed back.
    const notSmtp = net.createServer((socket) => socket.end('-ERR secret banner of another service\r\n'));
    await new Promise<void>((resolve) => notSmtp.listen(0, '127.0.0.1', resolve));
    await org.put(ONBOARDING_API.nextHop, {
      next_hop: `127.0.0.1:${(notSmtp.address() as net.AddressInfo).port}`,
    });
    const other = await org.post(ONBOARDING_API.testMessage, { to: `boss@${org.domain}` });
    notSmtp.close();
    expect(other.json()).toMatchObject({ delivered: false });
    expect(other.json().response).not.toContain('secret');
    expect(await org.audited('onboarding.test_message')).toHaveLength(4);
  });

  it("delivers the organisation's mail to its own next hop, with no relay on this node", async () => {
    const org = await newOrganisation();
    await org.put(ONBOARDING_API.nextHop, { next_hop: `127.0.0.1:${hopPort}` });
    const other = await newOrganisation();
    const mail = (tenantId: string, to: string) => ({
      tenantId,
      kind: 'test',
      to,
      fromName: 'Moat',
      subject: `For ${to}`,
      text: 'hello',
      html: '',
    });
    const mailer = t.app.services.mailer;
    const ours = await mailer.send(mail(org.tenant.id, `pat@${org.domain}`));
    const theirs = await mailer.send(mail(other.tenant.id, `sam@${other.domain}`));
    await mailer.drain();
    await expect
      .poll(async () => (await t.db.select().from(outbox).where(eq(outbox.id, ours)))[0]!.status)
      .toBe('sent');
    expect(received.some((m) => m.to.includes(`pat@${org.domain}`))).toBe(true);
    // No next hop and no relay here: it waits, unclaimed, its attempts uncounted.
    const [waiting] = await t.db.select().from(outbox).where(eq(outbox.id, theirs));
    expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
  });
});
