import { eq } from 'drizzle-orm';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailLog, outbox, restoreRequests, senderLists } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildMailLogEntry, buildQuarantinedMessage, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

/** DNS where outside.test allows 127.0.0.1 to send its mail (SPF pass) and has no DKIM or DMARC. */
const dns = async (name: string, rr: string) => {
  if (name === 'outside.test' && rr === 'TXT') return [['v=spf1 ip4:127.0.0.1 -all']];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let sink: SMTPServer;
let port: number;
let admin: Jar;
let otherAdmin: Jar;
let plainUser: Jar;
const password = 'admin password 1';

beforeAll(async () => {
  // The next hop: accepts every delivery.
  sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      stream.resume();
      stream.on('end', () => callback());
    },
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const sinkPort = (sink.server.address() as { port: number }).port;
  t = await buildTestApp({
    dnsResolver: dns as never,
    env: {
      CAPTCHA_DIFFICULTY: '10',
      SMTP_HOSTNAME: 'mx.moat.test',
      SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}?pool=false`,
    },
  });
  const tenant = await buildTenant(t.db, { domain: 'trace.test' });
  const other = await buildTenant(t.db);
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: 'admin@trace.test', role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, { email: 'user@trace.test', role: 'user', passwordHash: hash });
  await buildUser(t.db, other.id, { email: `admin@${other.domain}`, role: 'admin', passwordHash: hash });
  admin = new Jar();
  otherAdmin = new Jar();
  plainUser = new Jar();
  await login(t.app, admin, 'admin@trace.test', password);
  await login(t.app, otherAdmin, `admin@${other.domain}`, password);
  await login(t.app, plainUser, 'user@trace.test', password);
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
  await new Promise<void>((r) => sink.close(() => r()));
});

/** Send through the gateway's front door, process it and deliver what is due. */
async function through(options: SendMailOptions) {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({ from: 'Bob <bob@outside.test>', to: 'ana@trace.test', text: 'Hi Ana', ...options });
  await t.app.services.gateway.processor.drain();
  const [row] = await t.db
    .select()
    .from(mailLog)
    .where(eq(mailLog.subject, String(options.subject)));
  return row!;
}

async function sentOf(key: string) {
  for (let i = 0; i < 100; i++) {
    await t.app.services.mailer.drain();
    const [mail] = await t.db.select().from(outbox).where(eq(outbox.idempotencyKey, key));
    if (mail?.status === 'sent') return mail;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not sent: ${key}`);
}

const get = (jar: Jar, url: string) => t.app.inject({ method: 'GET', url, cookies: jar.cookies });
type Trace = {
  message: Record<string, unknown>;
  explanation: string;
  auth: Record<string, { result: string; reason: string }> | null;
  timeline: Array<{ at: string | null; kind: string; title: string; detail: string; outcome: string }>;
};

describe('GET /api/v1/mail_explorer/:id/trace', () => {
  it('tells the story of a clean message: session, authentication with reasons, engines, decision, sent', async () => {
    const row = await through({ subject: 'Clean trace' });
    await sentOf(`${row.inboundId}:ana@trace.test`);
    const res = await get(admin, `/api/v1/mail_explorer/${row.id}/trace`);
    expect(res.statusCode).toBe(200);
    const trace = res.json() as Trace;
    expect(trace.message).toMatchObject({
      mail_log_id: row.id,
      verdict: 'clean',
      action: 'delivered',
      delivery: 'sent',
      recipient: 'ana@trace.test',
    });
    expect(trace.explanation).toBe('Delivered: no engine found anything wrong with it.');
    expect(trace.auth!.spf).toMatchObject({ result: 'pass' });
    expect(trace.auth!.spf!.reason).toContain('127.0.0.1');
    expect(trace.auth!.dkim!.result).toBe('none');
    expect(trace.timeline.map((e) => e.kind)).toEqual([
      'received',
      'authentication',
      'authentication',
      'authentication',
      'engine',
      'decision',
      'delivery',
    ]);
    const [received] = trace.timeline;
    expect(received!.title).toBe('Received from 127.0.0.1');
    expect(received!.detail).toContain('HELO client.test');
    expect(received!.detail).toContain('without TLS');
    expect(received!.detail).toContain('MAIL FROM <bob@outside.test>');
    expect(trace.timeline[5]).toMatchObject({
      kind: 'decision',
      detail: expect.stringContaining('so it was delivered'),
    });
    expect(trace.timeline[6]).toMatchObject({
      kind: 'delivery',
      title: 'Delivery to ana@trace.test: sent',
      outcome: 'good',
    });

    // The Mail Explorer shows the same delivery state and filters by it.
    const list = (await get(admin, '/api/v1/mail_explorer?delivery=sent')).json();
    expect(list.items.map((i: { subject: string }) => i.subject)).toContain('Clean trace');
    expect(list.items.every((i: { delivery: string }) => i.delivery === 'sent')).toBe(true);
    const none = (await get(admin, '/api/v1/mail_explorer?delivery=none')).json();
    expect(none.items.map((i: { subject: string }) => i.subject)).not.toContain('Clean trace');
  });

  it('explains held malware in plain words and shows the restore request of the recipient', async () => {
    const row = await through({
      subject: 'Held trace',
      attachments: [{ filename: 'invoice.pdf', content: EICAR }],
    });
    expect(row.action).toBe('quarantined');
    const heldId = row.quarantineMessageId!;
    await t.db.insert(restoreRequests).values({
      tenantId: row.tenantId,
      messageId: heldId,
      kind: 'email',
      requestedBy: 'ana@trace.test',
      commentary: 'I expected this invoice',
      mode: 'request',
      status: 'requested',
    });
    const held = (await get(admin, `/api/v1/quarantine/messages/${heldId}/trace`)).json() as Trace;
    expect(held.message).toMatchObject({ mail_log_id: row.id, verdict: 'malware', delivery: 'none' });
    expect(held.explanation).toMatch(
      /^Held because .* found .*EICAR test file in invoice\.pdf; the policy for malware is to quarantine it and notify the recipient\.$/,
    );
    const kinds = held.timeline.map((e) => e.kind);
    expect(kinds.slice(0, 6)).toEqual([
      'received',
      'authentication',
      'authentication',
      'authentication',
      'engine',
      'decision',
    ]);
    expect(kinds).toEqual(expect.arrayContaining(['hold', 'event', 'request']));
    expect(held.timeline.find((e) => e.kind === 'request')!.detail).toContain('I expected this invoice');
  });

  it('says a blocked sender was held, and follows the release to its delivery', async () => {
    const row0 = (await t.db.select().from(mailLog).limit(1))[0]!;
    await t.db.insert(senderLists).values({ tenantId: row0.tenantId, list: 'block', value: 'blocked.test' });
    const row = await through({ from: 'x@blocked.test', subject: 'Blocked trace' });
    expect(row.action).toBe('quarantined_silent');
    const before = (await get(admin, `/api/v1/mail_explorer/${row.id}/trace`)).json() as Trace;
    expect(before.explanation).toBe(
      'Held silently because a block exception matches it (domain blocked.test (added by system)).',
    );
    expect(before.timeline.find((e) => e.kind === 'decision')!.detail).toBe(
      'Blocked by exception domain blocked.test (added by system)',
    );

    const release = await postJson(
      t.app,
      admin,
      `/api/v1/quarantine/messages/${row.quarantineMessageId}/release`,
    );
    expect(release.statusCode).toBeLessThan(300);
    const after = (
      await get(admin, `/api/v1/quarantine/messages/${row.quarantineMessageId}/trace`)
    ).json() as Trace;
    const kinds = after.timeline.map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['hold', 'release', 'delivery']));
    expect(kinds.indexOf('release')).toBeLessThan(kinds.lastIndexOf('delivery'));
    expect(after.explanation).toContain('It was later released to the recipient.');
    // Who released it reads as their address, not an account id.
    expect(after.timeline.find((e) => e.kind === 'release')!.title).toBe('Released by admin@trace.test');
    expect(after.timeline.find((e) => e.kind === 'hold')!.title).toBe('Held in quarantine');
  });

  it('builds the trace of a held message without a Mail Explorer row from the held copy', async () => {
    const tenantId = (await t.db.select().from(mailLog).limit(1))[0]!.tenantId;
    const held = await buildQuarantinedMessage(t.db, tenantId, {
      subject: 'Imported',
      reasons: ['Lookalike'],
    });
    const trace = (await get(admin, `/api/v1/quarantine/messages/${held.id}/trace`)).json() as Trace;
    expect(trace.message).toMatchObject({ mail_log_id: null, quarantine_message_id: held.id, action: null });
    expect(trace.explanation).toContain('Lookalike');
    expect(trace.timeline.map((e) => e.kind)).toEqual(expect.arrayContaining(['received', 'hold', 'event']));
  });

  it('is for admins of the tenant only: 403 for a user, 404 for another tenant or an unknown id, 400 for a malformed one', async () => {
    const row = (await t.db.select().from(mailLog).where(eq(mailLog.subject, 'Clean trace')))[0]!;
    expect((await get(plainUser, `/api/v1/mail_explorer/${row.id}/trace`)).statusCode).toBe(403);
    expect((await get(otherAdmin, `/api/v1/mail_explorer/${row.id}/trace`)).statusCode).toBe(404);
    const held = (await t.db.select().from(mailLog).where(eq(mailLog.subject, 'Held trace')))[0]!;
    expect(
      (await get(otherAdmin, `/api/v1/quarantine/messages/${held.quarantineMessageId}/trace`)).statusCode,
    ).toBe(404);
    expect((await get(otherAdmin, '/api/v1/mail_explorer?q=trace')).json().total).toBe(0);
    const unknown = '0b9b0c9e-3f6e-4a59-9d36-1c2b8a8e2f10';
    expect((await get(admin, `/api/v1/mail_explorer/${unknown}/trace`)).statusCode).toBe(404);
    expect((await get(admin, `/api/v1/quarantine/messages/${unknown}/trace`)).statusCode).toBe(404);
    expect((await get(admin, '/api/v1/mail_explorer/not-a-uuid/trace')).statusCode).toBe(400);
    expect((await get(admin, '/api/v1/mail_explorer?delivery=lost')).statusCode).toBe(400);
  });

  it('traces a row written before details were kept from its columns', async () => {
    const tenantId = (await t.db.select().from(mailLog).limit(1))[0]!.tenantId;
    const old = await buildMailLogEntry(t.db, tenantId, { subject: 'Old row', spf: 'fail' });
    const trace = (await get(admin, `/api/v1/mail_explorer/${old.id}/trace`)).json() as Trace;
    expect(trace.auth!.spf).toEqual({ result: 'fail', reason: '' });
    expect(trace.message.delivery).toBe('none');
  });
});
