import { MY_QUARANTINE_API } from '@moat/contracts/my-quarantine';
import { QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  mailLog,
  restoreRequests,
  spamLearnedMessages,
  spamLearnedTokens,
  spamThresholds,
} from '../../db/schema.ts';
import { createGatewayPolicyRepo } from '../../mail/gateway/gateway-policy.repo.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildQuarantinedMessage } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';

/**
 * Teaching the embedded anti-spam engine (issue 13): an admin marks messages as spam or not spam;
 * the tenant's next message of that kind scores accordingly, other tenants' mail does not change,
 * and a message is learned once.
 */

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10', SMTP_HOSTNAME: 'mx.moat.test' } });
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

/**
 * A kind of unwanted mail the shipped model has never seen: plain, polite text selling a made-up
 * product, each message worded a little differently.
 */
const PRODUCTS = ['Zentrolux', 'Quorvane', 'Brastell', 'Ulvimar', 'Tenzocite'];
function newKind(i: number) {
  const product = PRODUCTS[i % PRODUCTS.length];
  return {
    subject: `${product} calibration kit ${i}`,
    text: [
      `Dear colleague,`,
      ``,
      `the ${product} calibration kit for laboratory gauges is available again this week.`,
      `Our ${product} kits ship with the vortimeter adapter and the kelbrook sensor plate.`,
      `Reply with your department code ${1000 + i} to reserve a kit for your team.`,
      ``,
      `Regards, the ${product} distribution desk`,
    ].join('\n'),
  };
}

async function deliver(to: string, message: { subject: string; text: string }) {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({ from: 'Desk <desk@labsupply.test>', to, ...message });
  await t.app.services.gateway.processor.drain();
}

async function rowOf(subject: string) {
  const [row] = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
  return row!;
}

async function spamOf(admin: Awaited<ReturnType<typeof signedInAs>>, id: string) {
  const res = await admin.get(`/api/v1/mail_explorer/${id}/trace`);
  expect(res.statusCode).toBe(200);
  return res.json().spam as {
    score: number;
    engines: Array<{ engine: string; rules: Array<{ name: string; description: string }> }>;
    learned: string | null;
    learnable: boolean;
  };
}

describe('teaching the anti-spam engine from the console', () => {
  it('after 20 messages of a new kind are marked spam, the next one is spam for that tenant only', async () => {
    const admin = await signedInAs(t.app, t.db);
    const other = await signedInAs(t.app, t.db);
    const to = `ana@${admin.tenant.domain}`;

    // Before: the new kind is not spam to the shipped model, and the trace says why.
    await deliver(to, newKind(0));
    const first = await rowOf(newKind(0).subject);
    expect(first.verdict).not.toBe('spam');
    const before = await spamOf(admin, first.id);
    expect(before.engines[0]?.engine).toBe('moat_spam');
    expect(before.engines[0]?.rules[0]?.description).toMatch(/Bayesian classifier/);
    expect(before.learnable).toBe(true);

    for (let i = 1; i <= 20; i++) await deliver(to, newKind(i));
    for (let i = 1; i <= 20; i++) {
      const row = await rowOf(newKind(i).subject);
      const res = await admin.send('POST', `/api/v1/mail_explorer/${row.id}/learn`, { label: 'spam' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ label: 'spam', outcome: 'learned' });
    }

    await deliver(to, newKind(21));
    const after = await rowOf(newKind(21).subject);
    expect(after.verdict).toBe('spam');
    expect(after.reasons.join()).toMatch(/^Spam score/);
    const explained = await spamOf(admin, after.id);
    expect(explained.score).toBeGreaterThanOrEqual(6);
    expect(explained.engines[0]?.rules[0]).toMatchObject({ name: 'BAYES_99' });

    // Another organisation's engine learned nothing.
    await deliver(`ben@${other.tenant.domain}`, newKind(22));
    expect((await rowOf(newKind(22).subject)).verdict).not.toBe('spam');
  });

  it('learns a message once: again changes nothing, the other way moves it', async () => {
    const admin = await signedInAs(t.app, t.db);
    await deliver(`ana@${admin.tenant.domain}`, { subject: 'Once only', text: 'Lunch on Friday?' });
    const row = await rowOf('Once only');
    const url = `/api/v1/mail_explorer/${row.id}/learn`;
    const tokens = () =>
      t.db.select().from(spamLearnedTokens).where(eq(spamLearnedTokens.tenantId, admin.tenant.id));

    expect((await admin.send('POST', url, { label: 'spam' })).json().outcome).toBe('learned');
    const once = await tokens();
    expect(once.length).toBeGreaterThan(3);
    expect(once.every((r) => r.spam === 1 && r.ham === 0)).toBe(true);
    expect((await admin.send('POST', url, { label: 'spam' })).json().outcome).toBe('already');
    expect(await tokens()).toEqual(once);

    expect((await admin.send('POST', url, { label: 'ham' })).json().outcome).toBe('relearned');
    expect((await tokens()).every((r) => r.spam === 0 && r.ham === 1)).toBe(true);
    const [learned] = await t.db
      .select()
      .from(spamLearnedMessages)
      .where(
        and(
          eq(spamLearnedMessages.tenantId, admin.tenant.id),
          eq(spamLearnedMessages.messageKey, row.inboundId),
        ),
      );
    expect(learned).toMatchObject({ label: 'ham', source: 'admin', learnedBy: admin.user.id });
    expect((await spamOf(admin, row.id)).learned).toBe('ham');
  });

  it("an admin's release of held spam teaches it as wanted mail, from the held copy itself", async () => {
    const admin = await signedInAs(t.app, t.db);
    // Everything is spam to this organisation, and spam is held.
    await t.db.insert(spamThresholds).values({ tenantId: admin.tenant.id, suspicious: -100, spam: -50 });
    await createGatewayPolicyRepo(t.db).setAction(admin.tenant.id, 'spam', 'quarantine');
    await deliver(`ana@${admin.tenant.domain}`, {
      subject: 'Wanted after all',
      text: 'The minutes of Tuesday',
    });
    const row = await rowOf('Wanted after all');
    expect(row).toMatchObject({ verdict: 'spam', action: 'quarantined' });
    const res = await admin.send(
      'POST',
      `/api/v1/quarantine/messages/${row.quarantineMessageId}/release`,
      {},
    );
    expect(res.statusCode).toBe(200);
    const [learned] = await t.db
      .select()
      .from(spamLearnedMessages)
      .where(eq(spamLearnedMessages.messageKey, row.inboundId));
    expect(learned).toMatchObject({ tenantId: admin.tenant.id, label: 'ham', source: 'release' });
    // By the held copy's id too (the quarantine's own "not spam"): the same message, learned once.
    const again = await admin.send('POST', `/api/v1/quarantine/messages/${row.quarantineMessageId}/learn`, {
      label: 'ham',
    });
    expect(again.json()).toEqual({ label: 'ham', outcome: 'already' });
  });

  it("refuses another tenant's message (404) and a label that is not spam or ham (400)", async () => {
    const admin = await signedInAs(t.app, t.db);
    const stranger = await signedInAs(t.app, t.db);
    await deliver(`ana@${admin.tenant.domain}`, { subject: 'Not yours', text: 'Budget figures' });
    const row = await rowOf('Not yours');
    const theirs = await stranger.send('POST', `/api/v1/mail_explorer/${row.id}/learn`, { label: 'spam' });
    expect(theirs.statusCode).toBe(404);
    const bad = await admin.send('POST', `/api/v1/mail_explorer/${row.id}/learn`, { label: 'junk' });
    expect(bad.statusCode).toBe(400);
    const count = await t.db
      .select()
      .from(spamLearnedMessages)
      .where(eq(spamLearnedMessages.tenantId, admin.tenant.id));
    expect(count).toHaveLength(0);
  });
});

describe('every judgement of held mail teaches the engine (issue 35)', () => {
  /** An admin with held mail of their own: they are its recipient too. */
  async function adminWithMail() {
    const admin = await signedInAs(t.app, t.db);
    const held = (verdict: 'spam' | 'suspicious' | 'phishing', subject: string) =>
      buildQuarantinedMessage(t.db, admin.tenant.id, {
        recipient: admin.user.email,
        verdict,
        subject,
        saasType: 'smtp_emails',
      });
    const learned = async () =>
      (
        await t.db.select().from(spamLearnedMessages).where(eq(spamLearnedMessages.tenantId, admin.tenant.id))
      ).map((r) => [r.messageKey, r.label, r.source]);
    return { admin, held, learned };
  }
  const restoreOf = (id: string) => MY_QUARANTINE_API.restore.replace(':id', id);

  it("a recipient's own release (My Quarantine, automatic for spam) teaches it as wanted mail", async () => {
    const { admin, held, learned } = await adminWithMail();
    const spam = await held('spam', 'Cheap watches after all');
    expect((await admin.send('POST', restoreOf(spam.id), {})).statusCode).toBe(200);
    expect(await learned()).toEqual([[`held:${spam.id}`, 'ham', 'recipient_release']]);
  });

  it('a restore request approved teaches wanted mail, one declined teaches spam', async () => {
    const { admin, held, learned } = await adminWithMail();
    const wanted = await held('suspicious', 'The invoice I was waiting for');
    const unwanted = await held('suspicious', 'An invoice from nobody');
    for (const m of [wanted, unwanted]) {
      const asked = await admin.send('POST', restoreOf(m.id), { commentary: 'I think this is mine' });
      expect(asked.json().status).toBe('requested');
    }
    const requestOf = async (messageId: string) =>
      (await t.db.select().from(restoreRequests).where(eq(restoreRequests.messageId, messageId)))[0]!.id;
    const approved = await admin.send(
      'POST',
      QUARANTINE_ADMIN_API.restoreRequestAction(await requestOf(wanted.id), 'approve'),
      {},
    );
    expect(approved.statusCode).toBe(200);
    const declined = await admin.send(
      'POST',
      QUARANTINE_ADMIN_API.restoreRequestAction(await requestOf(unwanted.id), 'decline'),
      { reason: 'This is not from our supplier' },
    );
    expect(declined.statusCode).toBe(200);
    expect(await learned()).toEqual(
      expect.arrayContaining([
        [`held:${wanted.id}`, 'ham', 'restore_approved'],
        [`held:${unwanted.id}`, 'spam', 'restore_declined'],
      ]),
    );
  });

  it("the quarantine's 'is spam' / 'not spam' teaches it, and the other way moves it", async () => {
    const { admin, held, learned } = await adminWithMail();
    const m = await held('phishing', 'Your parcel is waiting');
    const feedback = (value: string) =>
      admin.send('POST', QUARANTINE_ADMIN_API.messageFeedback(m.id), { feedback: value });
    expect((await feedback('spam')).statusCode).toBe(200);
    expect(await learned()).toEqual([[`held:${m.id}`, 'spam', 'quarantine_feedback']]);
    expect((await feedback('not_spam')).statusCode).toBe(200);
    expect(await learned()).toEqual([[`held:${m.id}`, 'ham', 'quarantine_feedback']]);
    // A value that is neither is refused and teaches nothing.
    expect((await feedback('junk')).statusCode).toBe(400);
    expect(await learned()).toEqual([[`held:${m.id}`, 'ham', 'quarantine_feedback']]);
  });
});
