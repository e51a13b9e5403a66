import { SESSION_COOKIE } from '@moat/contracts/current-user';
import type {
  QuarantineSettings,
  QuarantineSettingsInput,
  ReportSettings,
  ReportSettingsInput,
} from '@moat/contracts/user-interaction-settings';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  outbox,
  phishingReports,
  quarantineMessages,
  restoreRequests,
  senderLists,
  spamLearnedMessages,
} from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';
import { holdMessage } from '../../test/hold.ts';
import { codeIn, Jar, lastMail } from '../../test/sign-in.ts';

/**
 * Settings → User Interaction: each setting saved here changes what Moat does — the notices and
 * digests it sends (read from the outbox as their recipients get them), who may decide restore
 * requests, what a report does to the message and what its reporter is told.
 */
const clock = new ManualClock('2026-11-25T09:00:00Z'); // a Wednesday
let t: Awaited<ReturnType<typeof buildTestApp>>;

beforeAll(async () => {
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

const QUARANTINE = '/api/v1/user_interaction/quarantine_settings';
const REPORTS = '/api/v1/user_interaction/report_settings';

/** A fresh organisation with a signed-in admin, a second admin and a plain user. */
async function organisation() {
  const admin = await signedInAs(t.app, t.db);
  const second = await buildUser(t.db, admin.tenant.id, {
    role: 'admin',
    email: `second@${admin.tenant.domain}`,
  });
  const { token: secondToken } = await buildSession(t.db, second);
  const secondCookies = { [SESSION_COOKIE]: secondToken };
  const user = await buildUser(t.db, admin.tenant.id, { role: 'user', email: `ana@${admin.tenant.domain}` });
  const { token } = await buildSession(t.db, user);
  const cookies = { [SESSION_COOKIE]: token };
  return {
    ...admin,
    second: {
      user: second,
      send: (method: 'POST' | 'PUT', url: string, payload: object = {}) =>
        t.app.inject({ method, url, cookies: secondCookies, headers: CSRF, payload }),
    },
    plainUser: user,
    plain: {
      get: (url: string) => t.app.inject({ method: 'GET', url, cookies }),
      put: (url: string, payload: object) =>
        t.app.inject({ method: 'PUT', url, cookies, headers: CSRF, payload }),
    },
  };
}
type Org = Awaited<ReturnType<typeof organisation>>;

function quarantineInput(s: QuarantineSettings): QuarantineSettingsInput {
  const { approver_candidates: _c, defaults: _d, ...input } = s;
  return input;
}
function reportInput(s: ReportSettings): ReportSettingsInput {
  const { defaults: _d, admin_alerts: _a, ...input } = s;
  return input;
}
const quarantineOf = async (org: Org) => (await org.get(QUARANTINE)).json() as QuarantineSettings;
const reportsOf = async (org: Org) => (await org.get(REPORTS)).json() as ReportSettings;

const heldRaw = (to: string, subject: string, messageId = `${subject.replace(/\W/g, '')}@bad.example`) =>
  Buffer.from(
    [
      'From: "Payroll" <payroll@bad.example>',
      `To: ${to}`,
      `Subject: ${subject}`,
      `Message-ID: <${messageId}>`,
      'Content-Type: text/plain',
      '',
      'Click the link now.',
      '',
    ].join('\r\n'),
  );

const mailsTo = (to: string, kind: string) =>
  t.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.toAddress, to), eq(outbox.kind, kind)));

describe('GET and PUT /api/v1/user_interaction/quarantine_settings', () => {
  it('answers the defaults: admins decide, a notice per message, no digest, the restore modes', async () => {
    const org = await organisation();
    const res = await org.get(QUARANTINE);
    expect(res.statusCode).toBe(200);
    const s = res.json() as QuarantineSettings;
    expect(s).toMatchObject({
      approvers: 'admins',
      approver_ids: [],
      notification_frequency: 'per_message',
      digest_schedule: 'off',
      digest_verdicts: ['phishing', 'spam', 'suspicious'],
      digest_days: null,
      notice_subject: '',
      verdicts: {
        spam: { restore_mode: 'automatic', identification_required: true },
        suspicious: { restore_mode: 'request', identification_required: true },
        phishing: { restore_mode: 'phish_request_restore', identification_required: true },
      },
    });
    expect(s.defaults.notice_subject).toBe('A message to you was held: {subject}');
    expect(s.approver_candidates.map((c) => c.email).sort()).toEqual(
      [org.user.email, `second@${org.tenant.domain}`].sort(),
    );
  });

  it('refuses inconsistent or unsafe settings with 400 and changes nothing', async () => {
    const org = await organisation();
    const before = await quarantineOf(org);
    const base = quarantineInput(before);
    const bad: Array<[object, string]> = [
      [{ ...base, notification_frequency: 'digest_only', digest_schedule: 'off' }, 'digest_needed'],
      [{ ...base, notification_frequency: 'off', digest_schedule: 'daily' }, 'digest_with_off'],
      [{ ...base, approvers: 'named', approver_ids: [] }, 'approvers_empty'],
      [{ ...base, approvers: 'named', approver_ids: [org.plainUser.id] }, 'approver_not_admin'],
      [{ ...base, digest_schedule: 'daily', digest_verdicts: [] }, 'digest_verdicts_empty'],
      [{ ...base, notice_subject: 'Held: {subject} see https://evil.example' }, 'wording_link'],
      [{ ...base, notice_intro: 'Hello <a href="x">team</a>' }, 'wording_markup'],
      [{ ...base, notice_subject: 'Held for {name}' }, 'wording_placeholder'],
      [{ ...base, digest_intro: 'Write to helpdesk@corp.example' }, 'wording_link'],
      [{ ...base, notice_intro: 'x'.repeat(501) }, 'wording_too_long'],
      [{ ...base, digest_days: 0 }, ''],
      [{ ...base, digest_days: 31 }, ''],
      [{ ...base, digest_verdicts: ['malware'] }, ''],
      [
        {
          ...base,
          verdicts: { ...base.verdicts, spam: { restore_mode: 'whenever', identification_required: true } },
        },
        '',
      ],
      [{ ...base, approver_ids: ['not-a-uuid'] }, ''],
    ];
    for (const [body, code] of bad) {
      const res = await org.send('PUT', QUARANTINE, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      if (code) expect(JSON.stringify(res.json()), JSON.stringify(body)).toContain(code);
    }
    expect(await quarantineOf(org)).toEqual(before);
  });

  it('is for admins only, and keeps organisations apart', async () => {
    const org = await organisation();
    const other = await organisation();
    expect((await org.plain.get(QUARANTINE)).statusCode).toBe(403);
    expect((await org.plain.put(QUARANTINE, quarantineInput(await quarantineOf(org)))).statusCode).toBe(403);
    expect((await org.plain.get(REPORTS)).statusCode).toBe(403);
    const input = quarantineInput(await quarantineOf(org));
    expect((await org.send('PUT', QUARANTINE, { ...input, notice_intro: 'Ours only.' })).statusCode).toBe(
      200,
    );
    expect((await quarantineOf(other)).notice_intro).toBe('');
    // Another organisation's admin cannot be named.
    const res = await org.send('PUT', QUARANTINE, {
      ...input,
      approvers: 'named',
      approver_ids: [other.user.id],
    });
    expect(res.statusCode).toBe(400);
  });

  it("puts the organisation's wording into the next notice, never as markup or a link", async () => {
    const org = await organisation();
    const input = quarantineInput(await quarantineOf(org));
    const saved = await org.send('PUT', QUARANTINE, {
      ...input,
      notice_subject: 'Acme security held: {subject}',
      notice_intro: 'Our security team keeps risky mail aside & tells you so.',
    });
    expect(saved.statusCode).toBe(200);
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(
        and(
          eq(auditLog.tenantId, org.tenant.id),
          eq(auditLog.action, 'user_interaction.quarantine_settings'),
        ),
      );
    expect(entry).toMatchObject({ actorEmail: org.user.email, targetType: 'tenant' });
    expect((entry!.details as { after: { notice_intro: string } }).after.notice_intro).toContain(
      'risky mail',
    );

    const to = `bob@${org.tenant.domain}`;
    await holdMessage(t.app, {
      raw: heldRaw(to, 'Salary update at www.evil.example'),
      recipient: to,
      verdict: 'phishing',
    });
    const notice = await lastMail(t.db, to, 'quarantine_notice');
    expect(notice.subject).toBe('Acme security held: Salary update at www[.]evil[.]example');
    expect(notice.text.split('\n').slice(0, 4).join(' ')).toContain(
      'Our security team keeps risky mail aside & tells you so.',
    );
    expect(notice.html).toContain('Our security team keeps risky mail aside &amp; tells you so.');
    expect(notice.html).not.toContain('evil.example');
  });

  it('sends no notice when the organisation tells by digest only, and lists the message in the digest', async () => {
    const org = await organisation();
    const input = quarantineInput(await quarantineOf(org));
    expect(
      (
        await org.send('PUT', QUARANTINE, {
          ...input,
          notification_frequency: 'digest_only',
          digest_schedule: 'daily',
          digest_verdicts: ['spam'],
          digest_days: 3,
          digest_subject: 'Acme: {count} held ({period})',
          digest_intro: 'Here is what we kept aside.',
        })
      ).statusCode,
    ).toBe(200);
    expect((await quarantineOf(org)).notification_frequency).toBe('digest_only');
    const to = `cy@${org.tenant.domain}`;
    const now = clock.now().getTime();
    const hold = async (subject: string, verdict: 'spam' | 'phishing', hoursAgo: number) => {
      const { message } = await holdMessage(t.app, { raw: heldRaw(to, subject), recipient: to, verdict });
      await t.db
        .update(quarantineMessages)
        .set({ receivedAt: new Date(now - hoursAgo * 3600_000) })
        .where(eq(quarantineMessages.id, message.id));
    };
    await hold('Spam two days ago', 'spam', 40);
    await hold('Spam five days ago', 'spam', 5 * 24);
    await hold('Phishing yesterday', 'phishing', 12);
    expect(await mailsTo(to, 'quarantine_notice')).toHaveLength(0);
    // Held, not silent: the audit says the notice was not sent and why.
    await t.app.services.digest.run();
    const [digest] = await mailsTo(to, 'quarantine_digest');
    expect(digest).toBeDefined();
    expect(digest!.subject).toBe('Acme: 1 held (2026-11-24)');
    expect(digest!.text).toContain('Here is what we kept aside.');
    expect(digest!.text).toContain('Spam two days ago');
    expect(digest!.text).not.toContain('Spam five days ago');
    expect(digest!.text).not.toContain('Phishing yesterday');
  });

  it('tells nobody when notifications are off', async () => {
    const org = await organisation();
    const input = quarantineInput(await quarantineOf(org));
    expect(
      (await org.send('PUT', QUARANTINE, { ...input, notification_frequency: 'off', digest_schedule: 'off' }))
        .statusCode,
    ).toBe(200);
    const to = `dee@${org.tenant.domain}`;
    await holdMessage(t.app, { raw: heldRaw(to, 'Nobody told'), recipient: to, verdict: 'spam' });
    await t.app.services.digest.run();
    expect(await mailsTo(to, 'quarantine_notice')).toHaveLength(0);
    expect(await mailsTo(to, 'quarantine_digest')).toHaveLength(0);
  });

  it('saves what recipients may do per verdict: the next hold follows it', async () => {
    const org = await organisation();
    const input = quarantineInput(await quarantineOf(org));
    input.verdicts.spam = { restore_mode: 'request', identification_required: false };
    expect((await org.send('PUT', QUARANTINE, input)).statusCode).toBe(200);
    expect((await org.get('/api/v1/policy')).json().verdicts.spam).toMatchObject({
      restore_mode: 'request',
      identification_required: false,
    });
    const to = `eve@${org.tenant.domain}`;
    const { policy } = await holdMessage(t.app, {
      raw: heldRaw(to, 'Ask for it'),
      recipient: to,
      verdict: 'spam',
    });
    expect(policy).toEqual({ mode: 'request', identificationRequired: false });
    expect((await lastMail(t.db, to, 'quarantine_notice')).text).toContain(
      'ask your administrator to release it',
    );
  });

  it('lets only the named approvers decide restore requests, and alerts only them', async () => {
    const org = await organisation();
    const input = quarantineInput(await quarantineOf(org));
    expect(
      (
        await org.send('PUT', QUARANTINE, {
          ...input,
          approvers: 'named',
          approver_ids: [org.second.user.id],
        })
      ).statusCode,
    ).toBe(200);
    const to = `fay@${org.tenant.domain}`;
    const { message } = await holdMessage(t.app, {
      raw: heldRaw(to, 'Need this'),
      recipient: to,
      verdict: 'suspicious',
    });
    const live = await t.app.services.publicActions.live('office365_emails', message.publicId);
    const policy = await t.app.services.publicActions.policyOf(live!);
    await t.app.services.publicActions.restoreFor(live!, policy, 'email', 'I need it', {
      by: to,
      actor: { type: 'anonymous', email: to },
    });
    expect(await mailsTo(`second@${org.tenant.domain}`, 'alert_restore_request')).toHaveLength(1);
    expect(await mailsTo(org.user.email, 'alert_restore_request')).toHaveLength(0);
    const [request] = await t.db
      .select()
      .from(restoreRequests)
      .where(eq(restoreRequests.messageId, message.id));
    const denied = await org.send('POST', `/api/v1/restore_requests/${request!.id}/approve`);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('insufficient_privileges');
    expect(
      (await org.send('POST', `/api/v1/restore_requests/${request!.id}/decline`, { reason: 'No' }))
        .statusCode,
    ).toBe(403);
    const [still] = await t.db.select().from(restoreRequests).where(eq(restoreRequests.id, request!.id));
    expect(still!.status).toBe('requested');
    const approved = await org.second.send('POST', `/api/v1/restore_requests/${request!.id}/approve`);
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toEqual({ status: 'restored' });
  });
});

// ---------------------------------------------------------------------------------------------

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** The action page's id of a notice's link labelled `label`, or null when the notice has none. */
async function actionIdIn(recipient: string, label: string): Promise<string | null> {
  const mail = await lastMail(t.db, recipient, 'quarantine_notice');
  const line = mail.text.split('\n').find((l) => l.startsWith(label));
  if (!line) return null;
  return new URLSearchParams(line.slice(line.indexOf('http')).split('?')[1] ?? '').get('id');
}

/** A recipient reports from the action page with an id, proving their address with the emailed code. */
async function reportWith(id: string, recipient: string) {
  const jar = new Jar();
  const inject = (method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app
      .inject({
        method,
        url,
        headers: CSRF,
        cookies: jar.cookies,
        remoteAddress: jar.ip,
        ...(payload ? { payload } : {}),
      })
      .then((res) => jar.take(res));
  await inject('POST', `/api/v1/office365_emails/verify_recipient?${q({ id, email: recipient })}`, {
    action_name: 'email_action',
  });
  const code = codeIn((await lastMail(t.db, recipient, 'recipient_verification')).text);
  return inject('GET', `/api/v1/office365_emails/user_response?${q({ id, email: recipient, code })}`);
}

describe('GET and PUT /api/v1/user_interaction/report_settings', () => {
  it('answers the defaults, refuses bad input with 400, saves and audits', async () => {
    const org = await organisation();
    const s = await reportsOf(org);
    expect(s).toMatchObject({
      button_phishing: true,
      button_safe: true,
      on_report: 'keep',
      receipt_email: false,
      verdict_email: true,
      confirm_scope: 'all_copies',
      block_sender: 'ask',
      learn: true,
      admin_alerts: true,
    });
    const base = reportInput(s);
    for (const body of [
      { ...base, on_report: 'delete' },
      { ...base, block_sender: 'sometimes' },
      { ...base, receipt_text: 'Thanks! More at https://intranet.example' },
      { ...base, confirmed_text: '<b>Done</b>' },
      { ...base, learn: 'yes' },
      { ...base, extra: 1 },
    ]) {
      expect((await org.send('PUT', REPORTS, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await reportsOf(org)).toEqual(s);
    const res = await org.send('PUT', REPORTS, { ...base, on_report: 'hold' });
    expect(res.statusCode).toBe(200);
    expect((res.json() as ReportSettings).on_report).toBe('hold');
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(
        and(eq(auditLog.tenantId, org.tenant.id), eq(auditLog.action, 'user_interaction.report_settings')),
      )
      .orderBy(desc(auditLog.createdAt));
    expect(entry!.details).toMatchObject({ before: { on_report: 'keep' }, after: { on_report: 'hold' } });
  });

  it('offers only the report buttons turned on, and takes no report from one turned off since', async () => {
    const org = await organisation();
    const to = `gil@${org.tenant.domain}`;
    await holdMessage(t.app, { raw: heldRaw(to, 'Before'), recipient: to, verdict: 'phishing' });
    const oldId = await actionIdIn(to, 'Report this message as phishing');
    expect(oldId).not.toBeNull();
    const input = reportInput(await reportsOf(org));
    expect((await org.send('PUT', REPORTS, { ...input, button_phishing: false })).statusCode).toBe(200);
    await holdMessage(t.app, { raw: heldRaw(to, 'After'), recipient: to, verdict: 'phishing' });
    expect(await actionIdIn(to, 'Report this message as phishing')).toBeNull();
    expect(await actionIdIn(to, 'Report this message as safe')).not.toBeNull();
    const late = await reportWith(oldId!, to);
    expect(late.statusCode).toBe(404);
    expect(await t.db.select().from(phishingReports).where(eq(phishingReports.reporter, to))).toHaveLength(0);
  });

  it('holds a reported message for review, answers the reporter in the words set, and mails a receipt', async () => {
    const org = await organisation();
    const input = reportInput(await reportsOf(org));
    expect(
      (
        await org.send('PUT', REPORTS, {
          ...input,
          on_report: 'hold',
          receipt_email: true,
          receipt_text: 'Thanks, the security desk will look at it today.',
        })
      ).statusCode,
    ).toBe(200);
    const to = `hal@${org.tenant.domain}`;
    const { message } = await holdMessage(t.app, {
      raw: heldRaw(to, 'Reported one'),
      recipient: to,
      verdict: 'spam',
    });
    const answer = await reportWith((await actionIdIn(to, 'Report this message as phishing'))!, to);
    expect(answer.json()).toMatchObject({
      success: true,
      secondary_text: 'Thanks, the security desk will look at it today.',
    });
    const receipt = await lastMail(t.db, to, 'report_receipt');
    expect(receipt.subject).toBe('We received your report');
    expect(receipt.text).toContain('Thanks, the security desk will look at it today.');
    // Spam is restorable at once by default, but not while the report waits.
    const jar = new Jar();
    const restore = await t.app.inject({
      method: 'POST',
      url: `/api/v1/office365_emails/restore?${q({ msg: message.publicId })}`,
      headers: CSRF,
      cookies: jar.cookies,
      payload: { commentary: 'mine' },
    });
    expect(restore.statusCode).toBe(405);
    expect(restore.json().message).toContain('reported as phishing');
  });

  it('keeps a reported message restorable when the organisation keeps it', async () => {
    const org = await organisation();
    const to = `ida@${org.tenant.domain}`;
    const input = reportInput(await reportsOf(org));
    expect((await org.send('PUT', REPORTS, { ...input, on_report: 'keep' })).statusCode).toBe(200);
    const { message } = await holdMessage(t.app, {
      raw: heldRaw(to, 'Kept one'),
      recipient: to,
      verdict: 'suspicious',
    });
    await reportWith((await actionIdIn(to, 'Report this message as phishing'))!, to);
    const live = await t.app.services.publicActions.live('office365_emails', message.publicId);
    const policy = await t.app.services.publicActions.policyOf(live!);
    const body = await t.app.services.publicActions.restoreFor(live!, policy, 'email', 'please', {
      by: to,
      actor: { type: 'anonymous', email: to },
    });
    expect(body.status).toBe('requested');
  });

  it('confirms as set: the reported copy only, the sender always blocked, no learning, the words set', async () => {
    const org = await organisation();
    const input = reportInput(await reportsOf(org));
    expect(
      (
        await org.send('PUT', REPORTS, {
          ...input,
          confirm_scope: 'reported_copy',
          block_sender: 'always',
          learn: false,
          confirmed_text: 'We removed it. Thank you for watching out.',
        })
      ).statusCode,
    ).toBe(200);
    const reporter = `jo@${org.tenant.domain}`;
    const colleague = `kim@${org.tenant.domain}`;
    const a = await holdMessage(t.app, {
      raw: heldRaw(reporter, 'Same one', 'same1@bad.example'),
      recipient: reporter,
      verdict: 'phishing',
    });
    const b = await holdMessage(t.app, {
      raw: heldRaw(colleague, 'Same one', 'same1@bad.example'),
      recipient: colleague,
      verdict: 'phishing',
    });
    await reportWith((await actionIdIn(reporter, 'Report this message as phishing'))!, reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.reporter, reporter));
    const res = await org.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, { block_sender: false });
    expect(res.json()).toEqual({ status: 'confirmed', hidden: 1 });
    const [theirs] = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, b.message.id));
    expect(theirs!.state).toBe('quarantined');
    const blocked = await t.db.select().from(senderLists).where(eq(senderLists.tenantId, org.tenant.id));
    expect(blocked).toContainEqual(expect.objectContaining({ list: 'block', value: 'payroll@bad.example' }));
    expect(
      await t.db
        .select()
        .from(spamLearnedMessages)
        .where(eq(spamLearnedMessages.messageKey, `held:${a.message.id}`)),
    ).toHaveLength(0);
    const told = await lastMail(t.db, reporter, 'report_outcome');
    expect(told.text).toContain('We removed it. Thank you for watching out.');
  });

  it('refuses to block when blocking is turned off, and tells no reporter when that is off', async () => {
    const org = await organisation();
    const input = reportInput(await reportsOf(org));
    expect(
      (await org.send('PUT', REPORTS, { ...input, block_sender: 'never', verdict_email: false })).statusCode,
    ).toBe(200);
    const reporter = `lou@${org.tenant.domain}`;
    await holdMessage(t.app, {
      raw: heldRaw(reporter, 'Not told'),
      recipient: reporter,
      verdict: 'phishing',
    });
    await reportWith((await actionIdIn(reporter, 'Report this message as phishing'))!, reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.reporter, reporter));
    const refused = await org.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, {
      block_sender: true,
    });
    expect(refused.statusCode).toBe(400);
    const [still] = await t.db.select().from(phishingReports).where(eq(phishingReports.id, r!.id));
    expect(still!.status).toBe('open');
    const res = await org.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, { block_sender: false });
    expect(res.statusCode).toBe(200);
    expect(await mailsTo(reporter, 'report_outcome')).toHaveLength(0);
    expect(await t.db.select().from(senderLists).where(eq(senderLists.tenantId, org.tenant.id))).toHaveLength(
      0,
    );
  });
});
