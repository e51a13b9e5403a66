import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailLog, senderLists } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';

/**
 * The Exceptions pages' entries (SPEC §2.4) as the gateway applies them: each kind matched against
 * its part of the message, an expired entry ignored, an allow entry only for a proven sender.
 */

/** acrne.test's SPF passes for 127.0.0.1 (the test client); partner.test rejects everyone. */
const dns = async (name: string, rr: string) => {
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
/** Time the tests move (an entry's expiry), on top of real time. */
let offset = 0;

beforeAll(async () => {
  t = await buildTestApp({
    dnsResolver: dns as never,
    clock: { now: () => new Date(Date.now() + offset) },
    env: { CAPTCHA_DIFFICULTY: '10', SMTP_HOSTNAME: 'mx.moat.test' },
  });
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

/** A tenant of its own per test, so one test's entries do not decide another's mail. */
async function tenantWithRecipient() {
  const tenant = await buildTenant(t.db);
  const recipient = `ana@${tenant.domain}`;
  await buildUser(t.db, tenant.id, { email: recipient, firstName: 'Ana', lastName: 'Lopez' });
  return { tenantId: tenant.id, recipient };
}

async function deliver(to: string, options: SendMailOptions) {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({ from: 'Bob <bob@outside.test>', to, text: 'Hello', ...options });
  await t.app.services.gateway.processor.drain();
}

async function logOf(subject: string) {
  const [row] = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
  return row!;
}

const entry = (tenantId: string, values: Partial<typeof senderLists.$inferInsert>) =>
  t.db
    .insert(senderLists)
    .values({ tenantId, list: 'block', value: '', createdBy: 'admin@x.test', ...values });

describe('gateway exceptions', () => {
  it('holds mail from a client inside a blocked IP range, naming the entry in its reasons', async () => {
    const { tenantId, recipient } = await tenantWithRecipient();
    await entry(tenantId, { kind: 'ip_range', value: '127.0.0.0/8', comment: 'botnet' });
    await deliver(recipient, { subject: 'From a blocked range' });
    const log = await logOf('From a blocked range');
    expect(log.action).toBe('quarantined_silent');
    expect(log.reasons).toContain(
      'Blocked by exception ip range 127.0.0.0/8 (added by admin@x.test: botnet)',
    );
  });

  it('holds mail with an attachment whose SHA-256 is blocked, and delivers another attachment', async () => {
    const { tenantId, recipient } = await tenantWithRecipient();
    const bad = Buffer.from('quarterly numbers, the bad copy');
    await entry(tenantId, { kind: 'sha256', value: createHash('sha256').update(bad).digest('hex') });
    await deliver(recipient, { subject: 'Blocked file', attachments: [{ filename: 'q.txt', content: bad }] });
    await deliver(recipient, {
      subject: 'Other file',
      attachments: [{ filename: 'q.txt', content: Buffer.from('quarterly numbers, a good copy') }],
    });
    expect((await logOf('Blocked file')).action).toBe('quarantined_silent');
    expect((await logOf('Blocked file')).reasons.join()).toContain('Blocked by exception sha256');
    expect((await logOf('Other file')).action).toBe('delivered');
  });

  it('holds mail linking under a blocked URL', async () => {
    const { tenantId, recipient } = await tenantWithRecipient();
    await entry(tenantId, { kind: 'url', value: 'https://files.example/share' });
    await deliver(recipient, {
      subject: 'Blocked link',
      html: '<p>See <a href="https://FILES.example/share/doc?id=1#x">the file</a></p>',
    });
    await deliver(recipient, {
      subject: 'Other link',
      html: '<a href="https://files.example/about">about</a>',
    });
    expect((await logOf('Blocked link')).action).toBe('quarantined_silent');
    expect((await logOf('Other link')).action).toBe('delivered');
  });

  it('stops blocking once the entry has expired (the clock, not the cache, decides)', async () => {
    const { tenantId, recipient } = await tenantWithRecipient();
    const now = t.app.clock.now().getTime();
    await entry(tenantId, { kind: 'sender', value: 'bob@outside.test', expiresAt: new Date(now + 60_000) });
    await deliver(recipient, { subject: 'Before expiry' });
    expect((await logOf('Before expiry')).action).toBe('quarantined_silent');
    offset += 120_000;
    await deliver(recipient, { subject: 'After expiry' });
    expect((await logOf('After expiry')).action).toBe('delivered');
  });

  it('ignores an allow entry for a sender that does not prove its domain', async () => {
    const { tenantId, recipient } = await tenantWithRecipient();
    await entry(tenantId, { list: 'allow', kind: 'domain', value: 'partner.test' });
    await deliver(recipient, { from: 'Partner <billing@partner.test>', subject: 'Spoofed partner' });
    const log = await logOf('Spoofed partner');
    expect(log).toMatchObject({ verdict: 'phishing', dmarc: 'fail' });
    expect(log.reasons.join()).not.toContain('by exception');
  });

  it("excuses only its own page's engine for a proven sender, and says so in the trace", async () => {
    const spamOnly = await tenantWithRecipient();
    await entry(spamOnly.tenantId, {
      list: 'allow',
      kind: 'sender',
      value: 'it@acrne.test',
      scope: 'anti_spam',
    });
    const phishing = await tenantWithRecipient();
    await entry(phishing.tenantId, {
      list: 'allow',
      kind: 'sender',
      value: 'it@acrne.test',
      scope: 'anti_phishing',
      comment: 'our IT provider',
    });
    // acrne.test looks like neither tenant's domain, so name the recipient's display name instead:
    // the lookalike finding comes from impersonating Ana Lopez by name.
    const from = 'Ana Lopez <it@acrne.test>';
    await deliver(spamOnly.recipient, { from, subject: 'Allowed for spam only' });
    await deliver(phishing.recipient, { from, subject: 'Allowed for phishing' });
    const spam = await logOf('Allowed for spam only');
    expect(spam.spf).toBe('pass');
    expect(spam.verdict).not.toBe('clean');
    const allowed = await logOf('Allowed for phishing');
    expect(allowed).toMatchObject({ verdict: 'clean', action: 'delivered' });
    expect(allowed.reasons).toContain(
      'Allowed by exception sender it@acrne.test (added by admin@x.test: our IT provider)',
    );
  });
});
