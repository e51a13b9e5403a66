import type { Policy, PolicyInput, WhatIf } from '@moat/contracts/policy';
import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, mailLog, outbox, quarantineMessages, securityTools } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildMailLogEntry, buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;
let admin: Jar;
let viewer: Jar;
let editor: Jar;
let otherAdmin: Jar;
const password = 'admin password 1';

beforeAll(async () => {
  t = await buildTestApp({ dnsResolver: noDns as never, env: { CAPTCHA_DIFFICULTY: '10' } });
  const tenant = await buildTenant(t.db, { domain: 'policy.test' });
  tenantId = tenant.id;
  const other = await buildTenant(t.db, { domain: 'elsewhere.test' });
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: 'admin@policy.test', role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, {
    email: 'viewer@policy.test',
    role: 'user',
    viewPolicy: true,
    passwordHash: hash,
  });
  await buildUser(t.db, tenant.id, {
    email: 'editor@policy.test',
    role: 'user',
    viewEditPolicy: true,
    passwordHash: hash,
  });
  await buildUser(t.db, tenant.id, { email: 'ana@policy.test', firstName: 'Ana', lastName: 'Lopez' });
  // The messages here are suspicious for their link alone: the anti-spam engine (which would call
  // a message of nothing but a link to an IP address spam) is off for this organisation.
  await t.db.insert(securityTools).values({ tenantId: tenant.id, name: 'anti_spam', state: 'disabled' });
  await buildUser(t.db, other.id, { email: 'admin@elsewhere.test', role: 'admin', passwordHash: hash });
  admin = new Jar();
  viewer = new Jar();
  editor = new Jar();
  otherAdmin = new Jar();
  await login(t.app, admin, 'admin@policy.test', password);
  await login(t.app, viewer, 'viewer@policy.test', password);
  await login(t.app, editor, 'editor@policy.test', password);
  await login(t.app, otherAdmin, 'admin@elsewhere.test', password);
  smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

const get = async (jar: Jar) =>
  t.app.inject({ method: 'GET', url: '/api/v1/policy', cookies: jar.cookies, remoteAddress: jar.ip });
const put = (jar: Jar, body: unknown) => postJson(t.app, jar, '/api/v1/policy', body, 'PUT');
const whatIf = (jar: Jar, body: unknown) => postJson(t.app, jar, '/api/v1/policy/what_if', body);

/** The policy as GET answers it, in the shape PUT takes. */
function inputOf(p: Policy): PolicyInput {
  const v = p.verdicts;
  return {
    verdicts: {
      phishing: { action: v.phishing.action },
      malware: { action: v.malware.action },
      spam: { action: v.spam.action },
      suspicious: { action: v.suspicious.action },
    },
    overrides: p.overrides.map(({ id: _id, ...o }) => o),
  };
}
async function current(jar: Jar = admin): Promise<Policy> {
  return JSON.parse((await get(jar)).body) as Policy;
}
function withSuspicious(p: Policy, action: Policy['verdicts']['suspicious']['action']): PolicyInput {
  const input = inputOf(p);
  return { ...input, verdicts: { ...input.verdicts, suspicious: { action } } };
}

/** A message the link checks call suspicious (a link to a bare IP address), through SMTP. */
async function sendSuspicious(subject: string, to = 'ana@policy.test') {
  await nodemailer
    .createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.test' })
    .sendMail({
      from: 'Bob <bob@outside.test>',
      to,
      subject,
      html: '<p>Hi</p><a href="http://192.0.2.7/login">Log in</a>',
    });
  await t.app.services.gateway.processor.drain();
  const [log] = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
  return log!;
}

describe('GET /api/v1/policy', () => {
  it('answers the defaults for a tenant that set nothing', async () => {
    const res = await get(admin);
    expect(res.statusCode).toBe(200);
    const p = JSON.parse(res.body) as Policy;
    expect(p.verdicts.suspicious).toEqual({
      action: 'strip',
      restore_mode: 'request',
      identification_required: true,
    });
    expect(p.verdicts.malware.restore_mode).toBe('none');
    expect(p.overrides).toEqual([]);
    expect(p.spam_thresholds).toEqual({ suspicious: 4, spam: 6 });
    expect(p.editable).toBe(true);
  });

  it('lets a view_policy user read it but marks it not editable', async () => {
    const p = await current(viewer);
    expect(p.editable).toBe(false);
    expect((await current(editor)).editable).toBe(true);
  });

  it('refuses a caller without a session', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/policy' });
    expect(res.statusCode).toBe(403);
  });
});

describe('PUT /api/v1/policy', () => {
  it('refuses a view-only user with 403 and changes nothing', async () => {
    const before = await current();
    const res = await put(viewer, withSuspicious(before, 'quarantine'));
    expect(res.statusCode).toBe(403);
    expect((await current()).verdicts.suspicious.action).toBe(before.verdicts.suspicious.action);
    const what = await whatIf(viewer, withSuspicious(before, 'quarantine'));
    expect(what.statusCode).toBe(403);
  });

  it('refuses invalid input with 400 and changes nothing', async () => {
    const before = await current();
    const bad: unknown[] = [
      {
        ...inputOf(before),
        verdicts: { ...inputOf(before).verdicts, malware: { action: 'deliver' } },
      },
      {
        ...inputOf(before),
        verdicts: { ...inputOf(before).verdicts, spam: { action: 'hide' } },
      },
      {
        ...inputOf(before),
        overrides: [{ match: 'recipient', value: 'not an address', verdict: 'spam', action: 'deliver' }],
      },
      {
        ...inputOf(before),
        overrides: [
          { match: 'group', name: 'VIPs', value: 'a@x.test, nope', verdict: 'spam', action: 'deliver' },
        ],
      },
      { verdicts: inputOf(before).verdicts },
      { ...inputOf(before), spam_thresholds: { suspicious: 7, spam: 5 } },
      { ...inputOf(before), spam_thresholds: { suspicious: 4, spam: 1000 } },
      { ...inputOf(before), spam_thresholds: { suspicious: '4', spam: 6 } },
      { ...inputOf(before), spam_thresholds: { suspicious: 4.25, spam: 6 } },
    ];
    for (const body of bad) {
      const res = await put(admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await current()).toEqual(before);
  });

  it('saves the whole policy, audits it with before and after, and answers the saved policy', async () => {
    const before = await current();
    const input: PolicyInput = {
      ...inputOf(before),
      verdicts: { ...inputOf(before).verdicts, spam: { action: 'quarantine' } },
      spam_thresholds: { suspicious: 3.5, spam: 8 },
      overrides: [
        {
          match: 'group',
          name: 'Board',
          value: 'CEO@policy.test; cfo@policy.test',
          verdict: 'spam',
          action: 'deliver',
        },
      ],
    };
    const res = await put(editor, input);
    expect(res.statusCode).toBe(200);
    const saved = JSON.parse(res.body) as Policy;
    // The restore mode is Settings → User Interaction's: the policy's save leaves it as it was.
    expect(saved.verdicts.spam).toEqual({ ...before.verdicts.spam, action: 'quarantine' });
    expect(saved.overrides).toMatchObject([
      { match: 'group', name: 'Board', value: 'ceo@policy.test,cfo@policy.test' },
    ]);
    expect(await current()).toMatchObject({ spam_thresholds: { suspicious: 3.5, spam: 8 } });
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'policy.update')));
    expect(entry).toMatchObject({ actorEmail: 'editor@policy.test', targetType: 'policy' });
    const details = entry!.details as { before: Policy; after: Policy };
    expect(details.before.verdicts.spam.action).toBe('deliver_banner');
    expect(details.after.verdicts.spam.action).toBe('quarantine');
    expect(details.after.spam_thresholds).toEqual({ suspicious: 3.5, spam: 8 });
    // Back to the start for the tests that follow.
    expect(
      (await put(admin, { ...inputOf(before), spam_thresholds: before.spam_thresholds })).statusCode,
    ).toBe(200);
  });

  it("keeps tenants apart: another tenant's admin reads and changes only their own policy", async () => {
    const mine = await current();
    const res = await put(otherAdmin, withSuspicious(mine, 'quarantine_silent'));
    expect(res.statusCode).toBe(200);
    expect((await current(otherAdmin)).verdicts.suspicious.action).toBe('quarantine_silent');
    expect((await current()).verdicts.suspicious.action).toBe(mine.verdicts.suspicious.action);
  });
});

describe('POST /api/v1/policy/what_if', () => {
  it("counts how the last 7 days' messages would change, and ignores older ones and other tenants'", async () => {
    const now = t.app.clock.now().getTime();
    const hoursAgo = (h: number) => new Date(now - h * 3600_000);
    for (let i = 0; i < 3; i++) {
      await buildMailLogEntry(t.db, tenantId, {
        verdict: 'suspicious',
        action: 'delivered_banner',
        subject: `What-if ${i}`,
        receivedAt: hoursAgo(i + 1),
      });
    }
    await buildMailLogEntry(t.db, tenantId, {
      verdict: 'suspicious',
      receivedAt: hoursAgo(24 * 8),
      subject: 'Old',
    });
    await buildMailLogEntry(t.db, tenantId, { verdict: 'clean', receivedAt: hoursAgo(1), subject: 'Clean' });
    await buildMailLogEntry(t.db, tenantId, {
      verdict: 'spam',
      action: 'delivered_banner',
      receivedAt: hoursAgo(1),
    });
    const res = await whatIf(admin, withSuspicious(await current(), 'quarantine'));
    expect(res.statusCode).toBe(200);
    const result = JSON.parse(res.body) as WhatIf;
    expect(result.days).toBe(7);
    expect(result.changed).toBe(3);
    expect(result.changes).toEqual([
      { verdict: 'suspicious', from: 'deliver_banner', to: 'quarantine', count: 3 },
    ]);
    expect(result.sample.map((s) => s.subject).sort()).toEqual(['What-if 0', 'What-if 1', 'What-if 2']);
    const unchanged = JSON.parse((await whatIf(admin, inputOf(await current()))).body) as WhatIf;
    expect(unchanged.changed).toBe(0);
    // Another tenant's what-if never sees these messages.
    const theirs = JSON.parse((await whatIf(otherAdmin, inputOf(await current(otherAdmin)))).body) as WhatIf;
    expect(theirs.considered).toBe(0);
  });

  it('refuses an invalid proposal with 400', async () => {
    const res = await whatIf(admin, { ...inputOf(await current()), overrides: 'none' });
    expect(res.statusCode).toBe(400);
  });
});

describe('the gateway follows the policy at once', () => {
  it('holds the next suspicious message after suspicious is set to quarantine', async () => {
    const first = await sendSuspicious('Suspicious before');
    expect(first).toMatchObject({ verdict: 'suspicious', action: 'delivered_banner' });
    expect((await put(admin, withSuspicious(await current(), 'quarantine'))).statusCode).toBe(200);
    const next = await sendSuspicious('Suspicious after');
    expect(next).toMatchObject({ verdict: 'suspicious', action: 'quarantined' });
    const [held] = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.id, next.quarantineMessageId!));
    expect(held).toBeDefined();
  });

  it("uses a recipient's override for the next message", async () => {
    const p = await current();
    const input: PolicyInput = {
      ...inputOf(p),
      overrides: [
        { match: 'recipient', value: 'Ana@policy.test', verdict: 'suspicious', action: 'deliver_banner' },
      ],
    };
    expect((await put(admin, input)).statusCode).toBe(200);
    const log = await sendSuspicious('Overridden');
    expect(log).toMatchObject({ verdict: 'suspicious', action: 'delivered_banner' });
    const [mail] = await t.db
      .select()
      .from(outbox)
      .where(eq(outbox.idempotencyKey, `${log.inboundId}:ana@policy.test`));
    // The HTML part is quoted-printable: its soft line breaks joined again.
    const raw = Buffer.from(mail!.raw!)
      .toString()
      .replace(/=\r?\n/g, '');
    expect(raw).toContain('Caution: this message looks suspicious');
  });
});
