import { rmSync } from 'node:fs';
import net from 'node:net';
import type { StoredMessageDetails } from '@moat/contracts/message-trace';
import { and, eq } from 'drizzle-orm';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  inboundMessages,
  mailLog,
  outbox,
  quarantineMessages,
  securityEvents,
  securityTools,
  senderLists,
} from '../../db/schema.ts';
import { phishingExplanation } from '../../modules/message-trace/message-trace.service.ts';
import { buildTestApp } from '../../test/app.ts';
import { selfSignedCertificate } from '../../test/certificates.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { parseMessage } from '../parse.ts';
import { createGatewayPolicyRepo } from './gateway-policy.repo.ts';
import { OFF_THREAD_AUTH_BYTES } from './processor.ts';
import type { SmtpInOptions } from './smtp-in.ts';

/** DNS for tests: no records anywhere (SPF none, DKIM none, DMARC none), answered at once. */
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};
/** DNS where acme-partner.test publishes a reject DMARC policy and no SPF that allows anyone. */
const dmarcDns = async (name: string, rr: string) => {
  if (name === '_dmarc.partner.test' && rr === 'TXT') return [['v=DMARC1; p=reject']];
  if (name === 'partner.test' && rr === 'TXT') return [['v=spf1 -all']];
  if (name === 'acrne.test' && rr === 'TXT') return [['v=spf1 ip4:127.0.0.1 -all']];
  // acrne.test proves itself with DMARC (SPF aligned with its From domain): what an allow entry needs.
  if (name === '_dmarc.acrne.test' && rr === 'TXT') return [['v=DMARC1; p=none']];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

/** An SMTP front door on the test database; processing is driven by the tests (drain). */
function gatewayWith(options: Partial<SmtpInOptions> = {}) {
  return testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log }, options);
}

beforeAll(async () => {
  t = await buildTestApp({
    dnsResolver: dmarcDns as never,
    env: { CAPTCHA_DIFFICULTY: '10', SMTP_HOSTNAME: 'mx.moat.test' },
  });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  await buildUser(t.db, tenant.id, { email: 'ana@acme.test', firstName: 'Ana', lastName: 'Lopez' });
  smtp = gatewayWith();
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

const transport = () =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    name: 'client.test',
  });

async function send(options: SendMailOptions) {
  return transport().sendMail({
    from: 'Bob <bob@outside.test>',
    to: 'ana@acme.test',
    subject: 'Hello',
    text: 'Hi Ana',
    ...options,
  });
}

/** Speaks SMTP line by line and collects the server's reply to each step (the banner first). */
function dialog(lines: string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const replies: string[] = [];
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      // A reply ends with a line whose code is followed by a space.
      while (/^\d{3} .*\r\n/m.test(buffer)) {
        const end = buffer.search(/^\d{3} .*\r\n/m);
        const lineEnd = buffer.indexOf('\r\n', end) + 2;
        replies.push(buffer.slice(end, lineEnd).trim());
        buffer = buffer.slice(lineEnd);
        const next = lines[replies.length - 1];
        if (next) socket.write(`${next}\r\n`);
        else socket.end();
      }
    });
    socket.on('close', () => resolve(replies));
    socket.on('error', reject);
  });
}

async function process() {
  return t.app.services.gateway.processor.drain();
}

async function logOf(subject: string) {
  const rows = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
  return rows;
}

describe('SMTP gateway: receiving', () => {
  it('accepts mail for a tenant domain and stores it before answering 250', async () => {
    const info = await send({ subject: 'Stored first' });
    expect(info.response).toMatch(/^250 .*queued as [0-9a-f-]{36}/);
    const id = /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
    const [row] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, id));
    expect(row).toMatchObject({
      status: 'received',
      mailFrom: 'bob@outside.test',
      rcptTo: ['ana@acme.test'],
    });
    expect(Buffer.from(row!.raw).toString()).toMatch(/^Received: from client\.test \(\[127\.0\.0\.1\]\)/);
    await process();
  });

  it('refuses a recipient of any other domain with 550: no open relay', async () => {
    const before = (await t.db.select().from(inboundMessages)).length;
    await expect(send({ to: 'someone@elsewhere.test' })).rejects.toMatchObject({ responseCode: 550 });
    expect((await t.db.select().from(inboundMessages)).length).toBe(before);
  });

  it('refuses a malformed sender with a 5xx and a message over the size limit with 552', async () => {
    const replies = await dialog([
      'EHLO client.test',
      'MAIL FROM:<not an address>',
      'MAIL FROM:<a@b@c.test>',
      'QUIT',
    ]);
    expect(replies[2]).toMatch(/^5\d\d /);
    expect(replies[3]).toMatch(/^5\d\d /);
    expect(replies[4]).toMatch(/^221 /);
    await expect(send({ text: 'x'.repeat(250_000) })).rejects.toMatchObject({ responseCode: 552 });
  });
});

describe('SMTP gateway: engines and policy', () => {
  it('delivers a clean message unchanged but for the added headers, once', async () => {
    await send({ subject: 'Clean one', text: 'Lunch at noon?' });
    await process();
    const [log] = await logOf('Clean one');
    expect(log).toMatchObject({ verdict: 'clean', action: 'delivered', spf: expect.any(String) });
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`));
    expect(mail).toMatchObject({
      kind: 'gateway_delivery',
      toAddress: 'ana@acme.test',
      envelopeFrom: 'bob@outside.test',
    });
    const raw = Buffer.from(mail!.raw!).toString();
    const added = raw.slice(0, raw.indexOf('Received: from client.test'));
    expect(added).toMatch(/^Received-SPF: none \(mx\.moat\.test: /);
    expect(added).toContain('Authentication-Results: mx.moat.test;');
    const [inbound] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, log!.inboundId));
    // The original follows the added headers unchanged; the inbound copy is dropped once processed.
    expect(raw.slice(raw.indexOf('Received: from client.test'))).toMatch(/Lunch at noon\?\r?\n?$/);
    expect(inbound).toMatchObject({ status: 'processed' });
    expect(inbound!.raw).toHaveLength(0);
  });

  it('quarantines an EICAR attachment, records the event, tells the recipient and delivers nothing', async () => {
    await send({ subject: 'Invoice with EICAR', attachments: [{ filename: 'invoice.pdf', content: EICAR }] });
    await process();
    const [log] = await logOf('Invoice with EICAR');
    expect(log).toMatchObject({ verdict: 'malware', action: 'quarantined' });
    expect(log!.reasons.join()).toContain('EICAR test file in invoice.pdf');
    const [held] = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, log!.quarantineMessageId!));
    expect(held).toMatchObject({ verdict: 'malware', state: 'quarantined', saasType: 'smtp_emails' });
    const events = await t.db.select().from(securityEvents).where(eq(securityEvents.messageId, held!.id));
    expect(events).toHaveLength(1);
    // The Events screen's evidence: who, what was found by which engine, and which policy acted.
    expect(events[0]).toMatchObject({
      type: 'hold',
      recipient: 'ana@acme.test',
      subject: 'Invoice with EICAR',
      details: {
        inbound_id: log!.inboundId,
        decision: { verdict: 'malware', action: 'quarantine', source: 'default_policy' },
      },
    });
    expect(events[0]!.details.findings).toContainEqual(
      expect.objectContaining({ verdict: 'malware', reason: expect.stringContaining('EICAR test file') }),
    );
    const mails = await t.db.select().from(outbox).where(eq(outbox.toAddress, 'ana@acme.test'));
    const about = mails.filter((m) => m.subject.includes('Invoice with EICAR'));
    expect(about.map((m) => m.kind)).toEqual(['quarantine_notice']);
  });

  it('finds EICAR inside a zip archive', async () => {
    const { zipSync, strToU8 } = await import('fflate');
    const zip = Buffer.from(zipSync({ 'docs/readme.txt': strToU8(EICAR) }));
    await send({ subject: 'Zipped', attachments: [{ filename: 'docs.zip', content: zip }] });
    await process();
    const [log] = await logOf('Zipped');
    expect(log).toMatchObject({ verdict: 'malware', action: 'quarantined' });
    expect(log!.reasons.join()).toContain('docs.zip › readme.txt');
  });

  it('gives a lookalike sender domain the phishing verdict and quarantines it per policy', async () => {
    await send({ from: 'IT <it@acrne.test>', subject: 'Reset your password' });
    await process();
    const [log] = await logOf('Reset your password');
    expect(log).toMatchObject({ verdict: 'phishing', action: 'quarantined' });
    expect(log!.reasons.join()).toContain('Lookalike sender domain acrne.test imitates acme.test');
  });

  it('catches display-name impersonation, DMARC failure, IP links and link text naming another host', async () => {
    await send({ from: 'Ana Lopez <ana.lopez@freemail.test>', subject: 'Quick favour' });
    await send({ from: 'Partner <billing@partner.test>', subject: 'DMARC fails' });
    await send({
      subject: 'Links',
      html: '<a href="http://192.0.2.7/login">Log in</a> <a href="https://evil.test/x">https://bank.test/account</a>',
    });
    await process();
    expect((await logOf('Quick favour'))[0]!.reasons.join()).toContain('impersonates ana@acme.test');
    expect((await logOf('DMARC fails'))[0]).toMatchObject({ verdict: 'phishing', dmarc: 'fail' });
    const [links] = await logOf('Links');
    // Nothing but two deceptive links: the anti-spam engine's score makes it spam, not only suspicious.
    expect(links).toMatchObject({ verdict: 'spam', action: 'delivered_banner' });
    expect(links!.reasons.join()).toMatch(/Spam score/);
    expect(links!.reasons.join()).toContain('Link to an IP address');
    expect(links!.reasons.join()).toContain('Link text names bank.test but leads to evil.test');
  });

  it('quarantines the brand lure that got through before as phishing, with each piece of evidence and its points kept for the trace', async () => {
    await send({
      from: '"Microsoft 365" <security@micros0ft-login.example>',
      subject: 'Unusual sign-in activity',
      html:
        '<p>We detected unusual sign-in activity. Verify your account.</p>' +
        '<a href="https://micros0ft-login.example/owa/">https://login.microsoftonline.com/</a>',
    });
    await process();
    const [row] = await logOf('Unusual sign-in activity');
    expect(row).toMatchObject({ verdict: 'phishing', action: 'quarantined' });
    const explained = phishingExplanation(row!.details as StoredMessageDetails).phishing!;
    expect(explained.points).toBeGreaterThanOrEqual(explained.thresholds.phishing);
    expect(explained.rules).toContainEqual({
      name: 'BRAND_DISPLAY_NAME',
      score: 4,
      description:
        'The sender calls itself "Microsoft 365" (Microsoft), but writes from micros0ft-login.example, which is not Microsoft\'s',
    });
  });

  it('strips a .exe attachment under the strip policy, delivers the rest and keeps the original', async () => {
    await createGatewayPolicyRepo(t.db).setAction(tenantId, 'suspicious', 'strip');
    await send({
      subject: 'Tool update',
      text: 'Run the attached tool',
      attachments: [{ filename: 'update.exe', content: Buffer.from('MZ\x90\x00 fake program') }],
    });
    await process();
    const [log] = await logOf('Tool update');
    expect(log).toMatchObject({ verdict: 'suspicious', action: 'attachments_removed' });
    const [held] = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, log!.quarantineMessageId!));
    expect(held!.state).toBe('attachments_removed');
    const [stripped] = await t.db
      .select()
      .from(outbox)
      .where(
        and(
          eq(outbox.kind, 'stripped_delivery'),
          eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`),
        ),
      );
    const raw = Buffer.from(stripped!.raw!).toString();
    expect(raw).not.toContain('update.exe"');
    expect(raw).toContain('restore-original');
    expect(stripped!.envelopeFrom).toBe('bob@outside.test');
  });

  it('holds mail from a blocked sender silently and lets an allowed sender past judgement calls', async () => {
    await t.db.insert(senderLists).values([
      { tenantId, list: 'block', value: 'spam.test' },
      { tenantId, list: 'allow', value: 'it@acrne.test' },
      { tenantId, list: 'allow', value: 'partner.test' },
    ]);
    // Anyone can write an allowed address into From: without proof of its domain it counts for nothing.
    await send({ from: 'Partner <billing@partner.test>', subject: 'Spoofed allowed partner' });
    await send({ from: 'x@news.spam.test', subject: 'Blocked' });
    await send({ from: 'IT <it@acrne.test>', subject: 'Allowed lookalike' });
    await process();
    const [blocked] = await logOf('Blocked');
    expect(blocked).toMatchObject({ action: 'quarantined_silent' });
    // The Events screen tells a block-list hold from a verdict's, with the list as the decider.
    const [blockEvent] = await t.db
      .select()
      .from(securityEvents)
      .where(eq(securityEvents.messageId, blocked!.quarantineMessageId!));
    expect(blockEvent).toMatchObject({
      type: 'block',
      details: { decision: { action: 'quarantine_silent', source: 'block_list' } },
    });
    const notices = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.subject, 'A message to you was held: Blocked'));
    expect(notices).toHaveLength(0);
    expect((await logOf('Allowed lookalike'))[0]).toMatchObject({
      verdict: 'clean',
      action: 'delivered',
      spf: 'pass',
    });
    expect((await logOf('Spoofed allowed partner'))[0]).toMatchObject({ verdict: 'phishing', dmarc: 'fail' });

    // A sender's entries are kept per node; an entry added later (here by SQL, as the CLI would)
    // counts from the next message on.
    await send({ from: 'x@later.test', subject: 'Before the entry' });
    await process();
    expect((await logOf('Before the entry'))[0]).toMatchObject({ action: 'delivered' });
    await t.db.insert(senderLists).values({ tenantId, list: 'block', value: 'later.test' });
    await send({ from: 'x@later.test', subject: 'After the entry' });
    await process();
    expect((await logOf('After the entry'))[0]).toMatchObject({ action: 'quarantined_silent' });
  });

  it('authenticates a message over 1 MiB on a worker thread, with the same DNS answers', async () => {
    const big = `${'A large report, line after line of it.\n'.repeat(Math.ceil(OFF_THREAD_AUTH_BYTES / 38))}`;
    const roomy = gatewayWith({ maxMessageBytes: 4 * OFF_THREAD_AUTH_BYTES });
    const roomyPort = await roomy.listen(0, '127.0.0.1');
    try {
      const client = nodemailer.createTransport({
        host: '127.0.0.1',
        port: roomyPort,
        secure: false,
        ignoreTLS: true,
      });
      for (const [from, subject] of [
        ['IT <it@acrne.test>', 'Large from a passing sender'],
        ['Partner <billing@partner.test>', 'Large from a failing sender'],
      ]) {
        await client.sendMail({ from, to: 'ana@acme.test', subject, text: big });
      }
    } finally {
      await roomy.close();
    }
    await process();
    // SPF, DMARC and the Authentication-Results header as for a small message: the worker's DNS
    // questions were answered by the server's resolver.
    expect((await logOf('Large from a passing sender'))[0]).toMatchObject({ spf: 'pass' });
    expect((await logOf('Large from a failing sender'))[0]).toMatchObject({
      spf: 'fail',
      dmarc: 'fail',
      verdict: 'phishing',
    });
  });

  it('processes a message once even when a crash makes it run again', async () => {
    await send({ subject: 'Twice?' });
    await process();
    const [log] = await logOf('Twice?');
    // What a crash after delivery but before the processed mark would leave.
    await t.db
      .update(inboundMessages)
      .set({ status: 'received' })
      .where(eq(inboundMessages.id, log!.inboundId));
    await process();
    expect(await logOf('Twice?')).toHaveLength(1);
    expect(
      await t.db
        .select()
        .from(outbox)
        .where(eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`)),
    ).toHaveLength(1);
  });
});

describe('engines a tenant turned off (Security Engines)', () => {
  it("skips only that tenant's engine: its other engines and other tenants' mail are scanned as before", async () => {
    const quiet = await buildTenant(t.db, { domain: 'quiet.test' });
    await buildUser(t.db, quiet.id, { email: 'kim@quiet.test' });
    await t.db.insert(securityTools).values({ tenantId: quiet.id, name: 'ap_avanan', state: 'disabled' });
    // Anti-spam off too: a message of nothing but a link to an IP address is spam-like to it.
    await t.db.insert(securityTools).values({ tenantId: quiet.id, name: 'anti_spam', state: 'disabled' });
    const html = '<a href="http://192.0.2.9/login">Log in</a>';
    await send({ to: 'kim@quiet.test', subject: 'IP link, phishing engine off', html });
    await send({
      to: 'kim@quiet.test',
      subject: 'EICAR, phishing engine off',
      html,
      attachments: [{ filename: 'a.txt', content: EICAR }],
    });
    await send({ subject: 'IP link, phishing engine on', html });
    await process();
    expect((await logOf('IP link, phishing engine off'))[0]).toMatchObject({
      verdict: 'clean',
      action: 'delivered',
    });
    const [eicar] = await logOf('EICAR, phishing engine off');
    expect(eicar).toMatchObject({ verdict: 'malware', action: 'quarantined' });
    expect(eicar!.reasons.join()).not.toContain('Link to an IP address');
    expect((await logOf('IP link, phishing engine on'))[0]!.reasons.join()).toContain(
      'Link to an IP address',
    );
  });
});

describe('engines in the console', () => {
  it("lists the engines with their state: Moat's own anti-spam is on; rspamd, SpamAssassin, ClamAV and the DNS blocklists are off unless configured", async () => {
    expect(noDns).toBeTypeOf('function');
    const engines = t.app.services.gateway.engines.map((e) => ({ name: e.name, status: e.status }));
    expect(engines).toEqual([
      { name: 'anti_malware', status: 'on' },
      { name: 'anti_phishing', status: 'on' },
      { name: 'clamav', status: 'off' },
      { name: 'moat_spam', status: 'on' },
      { name: 'rspamd', status: 'off' },
      { name: 'spamassassin', status: 'off' },
      { name: 'dnsbl', status: 'off' },
    ]);
  });
});

describe('GET /api/v1/mail_explorer', () => {
  it("lists every processed message of the admin's tenant, clean ones too, searchable and filterable", async () => {
    const admin = await buildUser(t.db, tenantId, { email: 'boss@acme.test', role: 'admin' });
    const { token } = await buildSession(t.db, admin);
    const get = (query: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/v1/mail_explorer?${query}`,
        cookies: { moat_session: token },
      });
    const all = (await get('limit=200')).json();
    expect(all.total).toBeGreaterThanOrEqual(10);
    expect(all.items.map((i: { subject: string }) => i.subject)).toEqual(
      expect.arrayContaining(['Clean one', 'Invoice with EICAR', 'Tool update']),
    );
    const clean = (await get('verdict=clean&q=clean one')).json();
    expect(clean.items).toHaveLength(1);
    expect(clean.items[0]).toMatchObject({
      action: 'delivered',
      recipient: 'ana@acme.test',
      sender: 'bob@outside.test',
    });
    const held = (await get('action=quarantined&q=EICAR')).json();
    expect(held.items[0].quarantine_message_id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await get('verdict=nonsense')).statusCode).toBe(400);

    const user = await buildUser(t.db, tenantId, { email: 'user2@acme.test', role: 'user' });
    const userSession = await buildSession(t.db, user);
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/v1/mail_explorer',
      cookies: { moat_session: userSession.token },
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('STARTTLS', () => {
  it('is offered only when a certificate is configured, and then works', async () => {
    const { dir, keyFile: key, certFile: cert } = selfSignedCertificate('mx.moat.test');
    const tls = gatewayWith({ tls: { key, cert } });
    const tlsPort = await tls.listen(0, '127.0.0.1');
    try {
      expect((await dialog(['EHLO client.test', 'QUIT'])).join('\n')).not.toContain('STARTTLS');
      const secure = nodemailer.createTransport({
        host: '127.0.0.1',
        port: tlsPort,
        secure: false,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
      });
      const info = await secure.sendMail({
        from: 'bob@outside.test',
        to: 'ana@acme.test',
        subject: 'Over TLS',
        text: 'secret',
      });
      expect(info.response).toMatch(/^250 /);
      const [row] = await t.db
        .select()
        .from(inboundMessages)
        .where(eq(inboundMessages.id, /queued as (\S+)/.exec(info.response)![1]!));
      expect(Buffer.from(row!.raw).toString()).toMatch(/with ESMTPS/);
    } finally {
      await tls.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('limits per client address', () => {
  it('answers 421 to a connection past the per-address limit and 451 past the message rate', async () => {
    const limited = gatewayWith({ maxConnectionsPerIp: 2, maxMessagesPerMinute: 1 });
    const limitedPort = await limited.listen(0, '127.0.0.1');
    const greeting = () =>
      new Promise<{ line: string; socket: net.Socket }>((resolve) => {
        const socket = net.connect(limitedPort, '127.0.0.1');
        socket.once('data', (chunk) => resolve({ line: chunk.toString().trim(), socket }));
      });
    try {
      const open = [await greeting(), await greeting()];
      expect(open.map((o) => o.line.slice(0, 3))).toEqual(['220', '220']);
      const third = await greeting();
      expect(third.line).toMatch(/^421 /);
      for (const o of [...open, third]) o.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));

      const client = nodemailer.createTransport({
        host: '127.0.0.1',
        port: limitedPort,
        secure: false,
        ignoreTLS: true,
      });
      await client.sendMail({ from: 'bob@outside.test', to: 'ana@acme.test', subject: 'One', text: 'ok' });
      await expect(
        client.sendMail({ from: 'bob@outside.test', to: 'ana@acme.test', subject: 'Two', text: 'too fast' }),
      ).rejects.toMatchObject({ responseCode: 451 });
    } finally {
      await limited.close();
    }
  });
});

describe('an engine that fails', () => {
  it('marks the message suspicious when a local engine cannot scan it, instead of letting it through', async () => {
    const broken = {
      name: 'anti_malware',
      version: 'x',
      status: 'on' as const,
      failClosed: true,
      scan: async () => {
        throw new Error('boom');
      },
    };
    const engines = t.app.services.gateway.engines;
    const saved = [...engines];
    engines.splice(0, engines.length, broken);
    try {
      await send({ subject: 'Unscanned', text: 'hello' });
      await process();
      const [log] = await logOf('Unscanned');
      expect(log).toMatchObject({ verdict: 'suspicious', action: 'delivered_banner' });
      expect(log!.reasons).toEqual(['anti_malware could not scan this message']);
      // Delivered, but with a verdict: the security team sees an event for it.
      const events = await t.db.select().from(securityEvents).where(eq(securityEvents.tenantId, tenantId));
      const banner = events.find((e) => e.subject === 'Unscanned');
      expect(banner).toMatchObject({
        type: 'banner',
        recipient: 'ana@acme.test',
        subject: 'Unscanned',
        details: {
          inbound_id: log!.inboundId,
          decision: { verdict: 'suspicious', action: 'deliver_banner' },
        },
      });
      const [delivery] = await t.db
        .select()
        .from(outbox)
        .where(eq(outbox.idempotencyKey, `${log!.inboundId}:ana@acme.test`));
      const { text } = await parseMessage(Buffer.from(delivery!.raw!));
      expect(text).toContain('Caution: this message looks suspicious');
      expect(text).not.toMatch(/looks like suspicious/);
    } finally {
      engines.splice(0, engines.length, ...saved);
    }
  });
});
