import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditLog,
  outbox,
  phishingReports,
  quarantineMessages,
  securityEvents,
  senderLists,
  spamLearnedMessages,
} from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';
import { holdMessage } from '../../test/hold.ts';
import { codeIn, Jar, lastMail } from '../../test/sign-in.ts';

const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Awaited<ReturnType<typeof signedInAs>>;
let other: Awaited<ReturnType<typeof signedInAs>>;
type Answer = Awaited<ReturnType<Awaited<ReturnType<typeof buildTestApp>>['app']['inject']>>;
let plain: { get: (url: string) => Promise<Answer>; post: (url: string) => Promise<Answer> };

const raw = (to: string, messageId: string, extra: string[] = []) =>
  Buffer.from(
    [
      'From: "Payroll" <payroll@bad.example>',
      `To: ${to}`,
      'Subject: Update your salary details at https://evil.example/login',
      `Message-ID: <${messageId}@bad.example>`,
      ...extra,
      'Content-Type: text/plain',
      '',
      'Click https://evil.example/login now.',
      '',
    ].join('\r\n'),
  );

const strippedRaw = (to: string) =>
  Buffer.from(
    [
      'From: billing@supplier.example',
      `To: ${to}`,
      'Subject: Invoice',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="B"',
      '',
      '--B',
      'Content-Type: text/plain',
      '',
      'Attached.',
      '--B',
      'Content-Type: application/pdf; name="invoice.pdf"',
      'Content-Disposition: attachment; filename="invoice.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      'JVBERi0xLjQKJSVFT0YK',
      '--B--',
      '',
    ].join('\r\n'),
  );

let n = 0;
async function hold(
  recipient: string,
  messageId: string,
  verdict: 'phishing' | 'malware' | 'spam' | 'suspicious' = 'phishing',
  strip = false,
) {
  const { message } = await holdMessage(t.app, {
    raw: strip ? strippedRaw(recipient) : raw(recipient, messageId),
    recipient,
    verdict,
    stripAttachments: strip,
  });
  return message;
}

/** The action page's id of a notice's link labelled `label`. */
async function actionIdIn(recipient: string, label: string): Promise<string> {
  const mail = await lastMail(t.db, recipient, 'quarantine_notice');
  const line = mail.text.split('\n').find((l) => l.startsWith(label));
  const url = line?.slice(line.indexOf('http'));
  const id = new URLSearchParams(url?.split('?')[1] ?? '').get('id');
  if (!id) throw new Error(`no "${label}" link in:\n${mail.text}`);
  return id;
}

const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** A recipient reports from the action page, proving their address with the emailed code. */
async function report(recipient: string, label = 'Report this message as phishing') {
  const id = await actionIdIn(recipient, label);
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
  const first = await inject(
    'GET',
    `/api/v1/office365_emails/user_response?${q({ id, email: recipient, code })}`,
  );
  const again = await inject('GET', `/api/v1/office365_emails/user_response?${q({ id })}`);
  return { first, again };
}

const mailsOf = (kind: string, to: string) =>
  t.db
    .select()
    .from(outbox)
    .where(and(eq(outbox.kind, kind), eq(outbox.toAddress, to)));

beforeAll(async () => {
  t = await buildTestApp({ clock });
  admin = await signedInAs(t.app, t.db);
  other = await signedInAs(t.app, t.db);
  const user = await buildUser(t.db, admin.tenant.id, { role: 'user' });
  const { token } = await buildSession(t.db, user);
  const cookies = { [SESSION_COOKIE]: token };
  plain = {
    get: (url) => t.app.inject({ method: 'GET', url, cookies }),
    post: (url) => t.app.inject({ method: 'POST', url, cookies, headers: CSRF, payload: {} }),
  };
});
afterAll(() => t.close());

describe('a recipient reports a held message from the action page', () => {
  it('opens one report with one report event (not a second detection), however often it is asked', async () => {
    const recipient = `alice${++n}@${admin.tenant.domain}`;
    const m = await hold(recipient, `r${n}`);
    const { first, again } = await report(recipient);
    expect(first.json()).toMatchObject({
      success: true,
      secondary_text: expect.stringContaining('as phishing'),
    });
    expect(again.json()).toMatchObject({ success: true });
    const reports = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, m.id));
    expect(reports).toMatchObject([{ reporter: recipient, kind: 'reported_phishing', status: 'open' }]);
    const events = await t.db.select().from(securityEvents).where(eq(securityEvents.messageId, m.id));
    expect(events).toHaveLength(2);
    // The held message's detection, and one report: typed as such, so Events never shows it as a second detection.
    expect(events.map((e) => e.type).sort()).toEqual(['hold', 'report']);
    const reportEvents = events.filter((e) => e.engine === 'recipient');
    expect(reportEvents).toMatchObject([
      {
        type: 'report',
        recipient,
        severity: 'info',
        description: `Report: ${recipient} reported the message as phishing`,
      },
    ]);
    const listed = (await admin.get('/api/v1/phishing_reports?status=open')).json();
    expect(listed.items.map((i: { reporter: string }) => i.reporter)).toContain(recipient);
    expect(listed.items[0]).toMatchObject({ kind: 'reported_phishing', sender: 'payroll@bad.example' });
  });

  it('a report as safe from the other link is a report of its own kind', async () => {
    const recipient = `bob${++n}@${admin.tenant.domain}`;
    await hold(recipient, `s${n}`);
    const { first } = await report(recipient, 'Report this message as safe');
    expect(first.json().secondary_text).toContain('as safe');
    const listed = (
      await admin.get(`/api/v1/phishing_reports?kind=reported_safe&q=${encodeURIComponent(recipient)}`)
    ).json();
    expect(listed.items).toMatchObject([{ reporter: recipient, kind: 'reported_safe' }]);
  });
});

describe('POST /api/v1/phishing_reports/:id/confirm', () => {
  it('hides the message from every recipient, blocks the sender, tells the reporter, audits it', async () => {
    n++;
    const reporter = `carol${n}@${admin.tenant.domain}`;
    const colleague = `dave${n}@${admin.tenant.domain}`;
    const a = await hold(reporter, `c${n}`);
    const b = await hold(colleague, `c${n}`);
    await report(reporter);
    await report(colleague);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, a.id));
    const res = await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, { block_sender: true });
    // The colleague's report of their copy is answered by the same decision.
    const [theirs] = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, b.id));
    expect(theirs!.status).toBe('confirmed');
    expect((await lastMail(t.db, colleague, 'report_outcome')).subject).toBe('Your report was confirmed');
    expect(res.json()).toEqual({ status: 'confirmed', hidden: 2 });
    const states = await t.db
      .select({ state: quarantineMessages.state })
      .from(quarantineMessages)
      .where(like(quarantineMessages.messageIdHeader, `<c${n}@%`));
    expect(states.map((s) => s.state)).toEqual(['deleted', 'deleted']);
    // Not restorable from the colleague's public page any more.
    const exists = await t.app.inject({
      method: 'GET',
      url: `/api/v1/office365_emails/${b.publicId}/entity_exists`,
    });
    expect(exists.json()).toEqual({ isExists: false });
    const blocked = await t.db.select().from(senderLists).where(eq(senderLists.tenantId, admin.tenant.id));
    expect(blocked).toContainEqual(expect.objectContaining({ list: 'block', value: 'payroll@bad.example' }));
    // The organisation's anti-spam engine learned the message as spam (issue 13).
    const [learned] = await t.db
      .select()
      .from(spamLearnedMessages)
      .where(eq(spamLearnedMessages.messageKey, `held:${a.id}`));
    expect(learned).toMatchObject({ tenantId: admin.tenant.id, label: 'spam', source: 'phishing_report' });
    expect(learned!.tokens.length).toBeGreaterThan(5);
    const told = await lastMail(t.db, reporter, 'report_outcome');
    expect(told.subject).toBe('Your report was confirmed');
    expect(told.html).not.toMatch(/href="[^"]*evil/);
    expect(told.text).not.toContain('https://evil.example');
    expect(told.text).toContain('hxxps[://]evil[.]example');
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.targetId, r!.id));
    expect(audit.map((e) => e.action)).toContain('phishing_report.confirm');
    const again = await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, {
      block_sender: false,
    });
    expect(again.statusCode).toBe(409);
    expect(
      (await admin.get(`/api/v1/phishing_reports?status=confirmed&q=${encodeURIComponent(reporter)}`)).json()
        .items,
    ).toMatchObject([{ status: 'confirmed', block_sender: true }]);
  });

  it('pulls only copies from the same sender: a forged Message-ID does not pull other mail', async () => {
    n++;
    const reporter = `erin${n}@${admin.tenant.domain}`;
    const bystander = `finn${n}@${admin.tenant.domain}`;
    await hold(reporter, `f${n}`);
    // The attacker chose the Message-ID of a real message another recipient holds.
    const real = await holdMessage(t.app, {
      raw: Buffer.from(
        [
          'From: "Partner" <billing@partner.example>',
          `To: ${bystander}`,
          'Subject: Your invoice',
          `Message-ID: <f${n}@bad.example>`,
          'Content-Type: text/plain',
          '',
          'Invoice attached.',
          '',
        ].join('\r\n'),
      ),
      recipient: bystander,
      verdict: 'spam',
    });
    await report(reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.reporter, reporter));
    const res = await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, {
      block_sender: false,
    });
    expect(res.json()).toEqual({ status: 'confirmed', hidden: 1 });
    const [theirs] = await t.db
      .select({ state: quarantineMessages.state })
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, real.message.id));
    expect(theirs!.state).not.toBe('deleted');
  });

  it('dismiss marks it safe and tells the reporter; nothing is hidden or blocked', async () => {
    const reporter = `erin${++n}@${admin.tenant.domain}`;
    const m = await hold(reporter, `d${n}`);
    await report(reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, m.id));
    const res = await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/dismiss`);
    expect(res.json()).toEqual({ status: 'dismissed', hidden: 0 });
    const [row] = await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.id, m.id));
    expect(row!.state).toBe('quarantined');
    expect((await lastMail(t.db, reporter, 'report_outcome')).subject).toBe('Your report was reviewed');
  });

  it('refuses a plain user (403), another tenant (404) and bad input (400), changing nothing', async () => {
    const reporter = `frank${++n}@${admin.tenant.domain}`;
    const m = await hold(reporter, `i${n}`);
    await report(reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, m.id));
    expect((await plain.get('/api/v1/phishing_reports')).statusCode).toBe(403);
    expect((await plain.post(`/api/v1/phishing_reports/${r!.id}/dismiss`)).statusCode).toBe(403);
    expect((await plain.get('/api/v1/alerts/badge')).statusCode).toBe(403);
    expect((await plain.get('/api/v1/modified_attachments')).statusCode).toBe(403);
    expect((await other.get('/api/v1/phishing_reports')).json()).toEqual({ items: [], total: 0 });
    expect((await other.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, {})).statusCode).toBe(404);
    expect((await admin.send('POST', '/api/v1/phishing_reports/nope/confirm', {})).statusCode).toBe(400);
    expect(
      (await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/confirm`, { block_sender: 'yes' }))
        .statusCode,
    ).toBe(400);
    expect((await admin.get('/api/v1/phishing_reports?status=bogus')).statusCode).toBe(400);
    const [still] = await t.db.select().from(phishingReports).where(eq(phishingReports.id, r!.id));
    expect(still!.status).toBe('open');
  });

  it('exports the list as CSV', async () => {
    const res = await admin.get('/api/v1/phishing_reports/export?status=open');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.body.split('\n')[0]).toContain('reporter');
  });
});

describe('alerts', () => {
  it('emails the admins once per window with a count, and not at all when turned off', async () => {
    const to = admin.user.email;
    const before = (await mailsOf('alert_malware_hold', to)).length;
    await hold(`m1@${admin.tenant.domain}`, 'm1', 'malware');
    clock.advance(60_000);
    await hold(`m2@${admin.tenant.domain}`, 'm2', 'malware');
    clock.advance(60_000);
    await hold(`m3@${admin.tenant.domain}`, 'm3', 'malware');
    expect((await mailsOf('alert_malware_hold', to)).length).toBe(before + 1);
    clock.advance(10 * 60_000);
    await hold(`m4@${admin.tenant.domain}`, 'm4', 'malware');
    const mails = await mailsOf('alert_malware_hold', to);
    expect(mails.length).toBe(before + 2);
    expect(mails.some((m) => m.subject.endsWith(': 3 messages held for malware'))).toBe(true);
    // Other tenants' holds never reach these admins, and theirs are counted apart.
    expect((await mailsOf('alert_malware_hold', other.user.email)).length).toBe(0);

    const settings = { alert_restore_requests: true, alert_reports: false, alert_malware_holds: false };
    expect((await admin.send('PUT', '/api/v1/alerts/settings', settings)).json()).toEqual(settings);
    expect((await admin.get('/api/v1/alerts/settings')).json()).toEqual(settings);
    clock.advance(11 * 60_000);
    await hold(`m5@${admin.tenant.domain}`, 'm5', 'malware');
    expect((await mailsOf('alert_malware_hold', to)).length).toBe(before + 2);
    expect((await admin.send('PUT', '/api/v1/alerts/settings', { alert_reports: true })).statusCode).toBe(
      400,
    );
    await admin.send('PUT', '/api/v1/alerts/settings', {
      ...settings,
      alert_reports: true,
      alert_malware_holds: true,
    });
  });

  it('a new report alerts the admins; the badge counts open reports and waiting requests', async () => {
    // The last report alert was sent more than a window ago (the first test).
    const reporter = `gina${++n}@${admin.tenant.domain}`;
    await hold(reporter, `b${n}`);
    await report(reporter);
    const alert = await lastMail(t.db, admin.user.email, 'alert_report');
    expect(alert.subject).toContain('report');
    const badge = (await admin.get('/api/v1/alerts/badge')).json();
    const open = await t.db
      .select()
      .from(phishingReports)
      .where(and(eq(phishingReports.tenantId, admin.tenant.id), eq(phishingReports.status, 'open')));
    expect(badge).toMatchObject({ open_reports: open.length, total: open.length + badge.waiting_requests });
    expect((await other.get('/api/v1/alerts/badge')).json()).toEqual({
      open_reports: 0,
      waiting_requests: 0,
      total: 0,
    });
  });
});

describe('restore request alerts', () => {
  it("a recipient's restore request alerts the admins and counts as waiting", async () => {
    const recipient = `jack${++n}@${admin.tenant.domain}`;
    const m = await hold(recipient, `q${n}`, 'suspicious');
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
    await inject(
      'POST',
      `/api/v1/office365_emails/verify_recipient?${q({ msg: m.publicId, email: recipient })}`,
      {
        action_name: 'email_restore',
      },
    );
    const code = codeIn((await lastMail(t.db, recipient, 'recipient_verification')).text);
    const before = (await admin.get('/api/v1/alerts/badge')).json().waiting_requests;
    const sent = await inject(
      'POST',
      `/api/v1/office365_emails/restore?${q({ msg: m.publicId, email: recipient, code })}`,
      {
        commentary: 'I need it',
      },
    );
    expect(sent.json().status).toBe('requested');
    expect((await mailsOf('alert_restore_request', admin.user.email)).length).toBe(1);
    expect((await admin.get('/api/v1/alerts/badge')).json().waiting_requests).toBe(before + 1);
  });
});

describe('GET /api/v1/user_interaction/summary and /api/v1/modified_attachments', () => {
  it('counts reports per day, what waits, and the time to a decision', async () => {
    const reporter = `ivy${++n}@${admin.tenant.domain}`;
    const m = await hold(reporter, `y${n}`);
    await report(reporter);
    const [r] = await t.db.select().from(phishingReports).where(eq(phishingReports.messageId, m.id));
    clock.advance(60_000);
    await admin.send('POST', `/api/v1/phishing_reports/${r!.id}/dismiss`);
    const from = new Date(clock.now().getTime() - 3 * 86_400_000).toISOString();
    const to = new Date(clock.now().getTime() + 86_400_000).toISOString();
    const res = await admin.get(`/api/v1/user_interaction/summary?${q({ from, to })}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.days).toHaveLength(5);
    const reports = await t.db
      .select()
      .from(phishingReports)
      .where(eq(phishingReports.tenantId, admin.tenant.id));
    expect(body.totals.reports).toBe(reports.length);
    expect(body.days.reduce((s: number, d: { reports: number }) => s + d.reports, 0)).toBe(reports.length);
    expect(body.open_reports).toBe(reports.filter((r) => r.status === 'open').length);
    expect(body.decision.decided).toBe(reports.filter((r) => r.decidedAt).length);
    expect(body.decision.median_seconds).toBeGreaterThanOrEqual(0);
    expect((await other.get(`/api/v1/user_interaction/summary?${q({ from, to })}`)).json().totals).toEqual({
      restore_requests: 0,
      reports: 0,
    });
    expect(
      (await admin.get(`/api/v1/user_interaction/summary?${q({ from: to, to: from })}`)).statusCode,
    ).toBe(400);
    expect((await admin.get('/api/v1/user_interaction/summary')).statusCode).toBe(400);
  });

  it('lists every stripped attachment with its message and restore state', async () => {
    const recipient = `hank${++n}@${admin.tenant.domain}`;
    await hold(recipient, `a${n}`, 'malware', true);
    const list = (await admin.get(`/api/v1/modified_attachments?q=${encodeURIComponent(recipient)}`)).json();
    expect(list).toMatchObject({
      total: 1,
      items: [
        {
          filename: 'invoice.pdf',
          recipient,
          state: 'removed',
          verdict: 'malware',
          restore_status: 'quarantined',
        },
      ],
    });
    expect((await other.get('/api/v1/modified_attachments')).json()).toEqual({ items: [], total: 0 });
    const csv = await admin.get(`/api/v1/modified_attachments/export?q=${encodeURIComponent(recipient)}`);
    expect(csv.body).toContain('invoice.pdf');
  });
});
