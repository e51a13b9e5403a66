import fs from 'node:fs';
import { and, eq } from 'drizzle-orm';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailLog, personalSenderLists, quarantineMessages, senderLists } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { type RspamdDaemon, startRspamd } from '../../test/daemons/rspamd.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { decidingPersonalEntry, findingsUnderPersonalAllow, type PersonalEntry } from './policy.ts';

/**
 * Every user's own allow and block list (issue 12, SPEC §6) as the gateway applies it: for that
 * person's copy only, never over the organisation's block list, known malware or phishing.
 */

/** acrne.test proves itself (SPF for the test client, aligned with its DMARC); nothing else has DNS. */
const dns = async (name: string, rr: string) => {
  if (name === 'acrne.test' && rr === 'TXT') return [['v=spf1 ip4:127.0.0.1 -all']];
  if (name === '_dmarc.acrne.test' && rr === 'TXT') return [['v=DMARC1; p=none']];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

/**
 * What makes a message spam here: GTUBE, the anti-spam test string, which Debian's real rspamd
 * (started below) scores as spam. The test needs rspamd (CI installs it; a workstation without it
 * skips this file).
 */
const SPAMMY = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';
const rspamdInstalled = fs.existsSync('/usr/bin/rspamd') || process.env.CI === 'true';

const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let rspamd: RspamdDaemon;

beforeAll(async () => {
  if (!rspamdInstalled) return;
  rspamd = await startRspamd({ redisDb: 10 });
  t = await buildTestApp({
    dnsResolver: dns as never,
    env: {
      CAPTCHA_DIFFICULTY: '10',
      SMTP_HOSTNAME: 'mx.moat.test',
      RSPAMD_URL: rspamd.url,
      RSPAMD_CONTROLLER_URL: rspamd.controllerUrl,
      RSPAMD_PASSWORD: rspamd.password,
    },
  });
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  if (!rspamdInstalled) return;
  await smtp.close();
  await t.close();
  await rspamd?.stop();
});

/** A tenant of its own per test, with two people: Ana (who keeps a list) and Ben (who does not). */
async function twoRecipients() {
  const tenant = await buildTenant(t.db);
  const ana = await buildUser(t.db, tenant.id, {
    email: `ana@${tenant.domain}`,
    firstName: 'Ana',
    lastName: 'Lopez',
  });
  const ben = await buildUser(t.db, tenant.id, {
    email: `ben@${tenant.domain}`,
    firstName: 'Ben',
    lastName: 'Hart',
  });
  const own = (list: 'allow' | 'block', value: string) =>
    t.db.insert(personalSenderLists).values({
      tenantId: tenant.id,
      userId: ana.id,
      list,
      value,
      kind: value.includes('@') ? 'sender' : 'domain',
    });
  return { tenant, ana: ana.email, anaId: ana.id, ben: ben.email, own };
}

async function deliver(to: string[], options: SendMailOptions) {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({ from: 'Bob <bob@outside.test>', to, text: 'Hello', ...options });
  await t.app.services.gateway.processor.drain();
}

/** Mail Explorer's row of one recipient's copy. */
async function copyOf(subject: string, recipient: string) {
  const [row] = await t.db
    .select()
    .from(mailLog)
    .where(and(eq(mailLog.subject, subject), eq(mailLog.recipient, recipient)));
  return row!;
}

describe.skipIf(!rspamdInstalled)("the gateway and a recipient's own sender list", () => {
  it('holds mail from a sender the recipient blocked for that recipient only, naming the entry', async () => {
    const { ana, ben, own } = await twoRecipients();
    // A parent domain matches its subdomains' senders.
    await own('block', 'outside.test');
    await deliver([ana, ben], { from: 'News <news@mail.outside.test>', subject: 'Weekly news' });

    const anas = await copyOf('Weekly news', ana);
    expect(anas).toMatchObject({ action: 'quarantined_silent' });
    expect(anas.reasons).toContain(`Blocked by ${ana}'s own sender list: outside.test`);
    expect(anas.details?.decision?.source).toBe(`Blocked by ${ana}'s own sender list: outside.test`);
    expect(await copyOf('Weekly news', ben)).toMatchObject({ action: 'delivered', verdict: 'clean' });
    const held = await t.db
      .select({ recipient: quarantineMessages.recipient })
      .from(quarantineMessages)
      .where(eq(quarantineMessages.subject, 'Weekly news'));
    expect(held).toEqual([{ recipient: ana }]);
  });

  it('holds mail whose envelope sender is blocked, whatever its From says', async () => {
    const { ana, own } = await twoRecipients();
    await own('block', 'bounce@lists.example');
    await deliver([ana], {
      subject: 'Via a list',
      envelope: { from: 'bounce@lists.example', to: [ana] },
    });
    expect((await copyOf('Via a list', ana)).action).toBe('quarantined_silent');
  });

  it("excuses the anti-spam engine's findings for an allowed sender only when it proved its domain", async () => {
    const { ana, ben, own } = await twoRecipients();
    await own('allow', 'acrne.test');
    await own('allow', 'promo@unproven.example');
    await deliver([ana, ben], { from: 'Acrne <deals@acrne.test>', subject: 'Proven deals', text: SPAMMY });
    await deliver([ana], { from: 'Promo <promo@unproven.example>', subject: 'Unproven deals', text: SPAMMY });

    const allowed = await copyOf('Proven deals', ana);
    expect(allowed).toMatchObject({ verdict: 'clean', action: 'delivered', dmarc: 'pass' });
    expect(allowed.reasons).toContain(`Allowed by ${ana}'s own sender list: acrne.test`);
    expect(allowed.details?.decision?.source).toContain(`Allowed by ${ana}'s own sender list: acrne.test`);
    // Ben keeps no list: the spam check counts for his copy.
    expect(await copyOf('Proven deals', ben)).toMatchObject({ verdict: 'spam', action: 'delivered_banner' });
    // Anyone can write an allowed address into From: without DMARC pass the entry counts for nothing.
    const unproven = await copyOf('Unproven deals', ana);
    expect(unproven).toMatchObject({ verdict: 'spam', action: 'delivered_banner' });
    expect(unproven.reasons.join()).not.toContain('own sender list');
  });

  it('never lets known malware or phishing through for an allowed sender', async () => {
    const { ana, own } = await twoRecipients();
    await own('allow', 'acrne.test');
    await deliver([ana], {
      from: 'Acrne <it@acrne.test>',
      subject: 'Allowed, with EICAR',
      text: SPAMMY,
      attachments: [{ filename: 'invoice.txt', content: EICAR }],
    });
    // Naming a colleague from outside is display-name impersonation: phishing.
    await deliver([ana], {
      from: 'Ben Hart <it@acrne.test>',
      subject: 'Allowed, impersonating Ben',
      text: SPAMMY,
    });

    expect(await copyOf('Allowed, with EICAR', ana)).toMatchObject({
      verdict: 'malware',
      action: 'quarantined',
    });
    const phishing = await copyOf('Allowed, impersonating Ben', ana);
    // The entry excused the spam finding, and only that.
    expect(phishing).toMatchObject({ verdict: 'phishing', action: 'quarantined' });
    expect(phishing.reasons.join()).not.toContain('rspamd');
    expect(phishing.details?.decision?.source).toMatch(
      /^Allowed by .*Under the default policy, phishing mail is held/,
    );
  });

  it("never lets through a sender the organisation blocked, whatever the recipient's list says", async () => {
    const { tenant, ana, own } = await twoRecipients();
    await t.db
      .insert(senderLists)
      .values({ tenantId: tenant.id, list: 'block', value: 'acrne.test', createdBy: 'admin@x.test' });
    await own('allow', 'it@acrne.test');
    await deliver([ana], { from: 'Acrne <it@acrne.test>', subject: 'Blocked by the organisation' });

    const copy = await copyOf('Blocked by the organisation', ana);
    expect(copy.action).toBe('quarantined_silent');
    expect(copy.reasons.join()).toContain('Blocked by exception domain acrne.test');
    expect(copy.reasons.join()).not.toContain('own sender list');
  });

  it('applies a change to the list to the next message, without a restart', async () => {
    const { ana, anaId, own } = await twoRecipients();
    await deliver([ana], { subject: 'Before blocking' });
    await own('block', 'bob@outside.test');
    await deliver([ana], { subject: 'While blocked' });
    await t.db.delete(personalSenderLists).where(eq(personalSenderLists.userId, anaId));
    await deliver([ana], { subject: 'After unblocking' });

    expect((await copyOf('Before blocking', ana)).action).toBe('delivered');
    expect((await copyOf('While blocked', ana)).action).toBe('quarantined_silent');
    expect((await copyOf('After unblocking', ana)).action).toBe('delivered');
  });
});

describe('decidingPersonalEntry', () => {
  const entries: PersonalEntry[] = [
    { id: '1', list: 'allow', kind: 'domain', value: 'example.com' },
    { id: '2', list: 'block', kind: 'sender', value: 'spam@example.com' },
    { id: '3', list: 'allow', kind: 'sender', value: 'boss@example.com' },
  ];
  const subject = (fromSender: string, authenticated = true, envelopeSender = fromSender) => ({
    fromSender,
    envelopeSender,
    authenticated,
  });

  it('lets a block entry win and names the most specific allow entry', () => {
    expect(decidingPersonalEntry(entries, subject('SPAM@example.com'))?.entry.id).toBe('2');
    expect(decidingPersonalEntry(entries, subject('boss@example.com'))?.entry.id).toBe('3');
    expect(decidingPersonalEntry(entries, subject('x@mail.example.com'))).toMatchObject({
      list: 'allow',
      entry: { id: '1' },
    });
    expect(decidingPersonalEntry(entries, subject('x@example.com', true, 'spam@example.com'))?.list).toBe(
      'block',
    );
  });

  it('counts an allow entry only for a sender that proved its domain, a block entry always', () => {
    expect(decidingPersonalEntry(entries, subject('boss@example.com', false))).toBeNull();
    expect(decidingPersonalEntry(entries, subject('spam@example.com', false))?.list).toBe('block');
  });
});

describe('findingsUnderPersonalAllow', () => {
  it("excuses the anti-spam engine's spam, never malware or phishing", () => {
    const findings = [
      { engine: 'anti_spam', verdict: 'spam' as const, reason: 'rspamd' },
      { engine: 'anti_spam', verdict: 'phishing' as const, reason: 'phish symbol' },
      { engine: 'anti_malware', verdict: 'malware' as const, reason: 'EICAR' },
      { engine: 'anti_phishing', verdict: 'suspicious' as const, reason: 'odd link' },
    ];
    expect(findingsUnderPersonalAllow(findings).map((f) => f.reason)).toEqual([
      'phish symbol',
      'EICAR',
      'odd link',
    ]);
  });
});
