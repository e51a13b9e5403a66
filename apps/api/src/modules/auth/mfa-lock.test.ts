import { AUTH_API } from '@moat/contracts/auth-paths';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, tenants, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { newTotpSecret, totpCode } from '../../lib/totp.ts';
import { buildTestApp } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { codeIn, Jar, lastMail, login, postJson, solveCaptcha } from '../../test/sign-in.ts';
import { MFA_SECRET_PURPOSE } from './mfa-challenge.service.ts';

/*
 * Wrong one-time codes count against the user, not only against one sign-in: whoever knows the
 * password cannot sign in again and again to try codes. Past the free ones the code step is
 * locked with growing waits (a 429 that says until when, the right code refused meanwhile), on
 * every node, and the user is told by email once per lock.
 */

const clock = new ManualClock();
const PASSWORD = 'correct horse battery';
/** Two nodes of one cluster: one database, one key. */
let a: Awaited<ReturnType<typeof buildTestApp>>;
let b: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  a = await buildTestApp({ clock, env: { CAPTCHA_DIFFICULTY: '10' } });
  b = await buildTestApp({
    clock,
    database: a.database,
    serverKey: a.serverKey,
    env: { CAPTCHA_DIFFICULTY: '10' },
  });
});
afterAll(async () => {
  await b?.app.close();
  await a?.close();
});

/** A user with an authenticator (TOTP) set up. */
async function mfaUser() {
  const tenant = await buildTenant(a.db);
  const secret = newTotpSecret();
  const user = await buildUser(a.db, tenant.id, {
    email: `u${Math.random().toString(16).slice(2, 10)}@${tenant.domain}`,
    passwordHash: await hashPassword(PASSWORD),
    mfaEnabled: true,
    mfaSecret: a.serverKey.encrypt(MFA_SECRET_PURPOSE, secret),
  });
  return { user, secret };
}

/** A code that is none of the codes valid now (the authenticator's window is ±1 step). */
function wrongCode(secret: string): string {
  const valid = [-30_000, 0, 30_000].map((d) => totpCode(secret, new Date(clock.now().getTime() + d)));
  for (let n = 0; ; n++) {
    const code = String(n).padStart(6, '0');
    if (!valid.includes(code)) return code;
  }
}

/** A sign-in whose password is proven: the browser is at the code form. */
async function atCodeForm(email: string, node = a) {
  const jar = new Jar();
  const res = await login(node.app, jar, email, PASSWORD);
  expect(res.json()).toMatchObject({ next: 'mfa_code' });
  return jar;
}

const sendCode = (jar: Jar, code: string, node = a) => postJson(node.app, jar, AUTH_API.mfaCode, { code });

const mailsOf = async (email: string, kind: string) =>
  (
    await a.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, email), eq(outbox.kind, kind)))
  ).length;

/** Ten wrong codes over two sign-ins (five each, the most one sign-in takes): the free ones. */
async function useTheFreeCodes(email: string, secret: string) {
  for (let s = 0; s < 2; s++) {
    const jar = await atCodeForm(email);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await sendCode(jar, wrongCode(secret))).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  }
}

describe('POST /api/v1/auth/mfa/verify: wrong codes count per user, across sign-ins', () => {
  it('locks the code step at the 11th wrong code: a 429 that says when, the right code refused until then', async () => {
    const { user, secret } = await mfaUser();
    await useTheFreeCodes(user.email, secret);

    const eleventh = await sendCode(await atCodeForm(user.email), wrongCode(secret));
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.json()).toMatchObject({ code: 'mfa_locked' });
    expect(eleventh.headers['retry-after']).toBe('60');

    // A new sign-in with the password does not help: the right code is refused while locked.
    const right = await sendCode(await atCodeForm(user.email), totpCode(secret, clock.now()));
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe('mfa_locked');
    expect(right.json().message).toMatch(/Try again after \d{4}-\d\d-\d\d \d\d:\d\d UTC \(in 1 minute\)/);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);

    clock.advance(61_000);
    const open = await sendCode(await atCodeForm(user.email), totpCode(secret, clock.now()));
    expect(open.json()).toMatchObject({ success: true, next: 'done' });
  });

  it('evaluates at most 11 of 180 wrong codes sent at once over 36 sign-ins; the right code is refused after them', async () => {
    const { user, secret } = await mfaUser();
    const jars = await Promise.all(Array.from({ length: 36 }, () => atCodeForm(user.email)));
    const wrong = wrongCode(secret);
    const answers = (
      await Promise.all(
        jars.map(async (jar) => {
          const out = [];
          for (let i = 0; i < 5; i++) out.push(await sendCode(jar, wrong));
          return out;
        }),
      )
    ).flat();
    // No code got in; each sign-in ended at the lock (its later codes find no sign-in).
    expect(answers).toHaveLength(180);
    expect(answers.filter((r) => r.json().success === true)).toHaveLength(0);
    expect(answers.filter((r) => r.json().code === 'mfa_locked').length).toBeGreaterThanOrEqual(30);
    const evaluated = await a.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.mfa_failed'), eq(auditLog.actorUserId, user.id)));
    expect(evaluated.filter((e) => e.details.reason === 'wrong_code')).toHaveLength(11);
    const right = await sendCode(await atCodeForm(user.email), totpCode(secret, clock.now()));
    expect(right.json().code).toBe('mfa_locked');
  });

  it('doubles the wait at each wrong code after a lock: 1, 2, then 4 minutes', async () => {
    const { user, secret } = await mfaUser();
    await useTheFreeCodes(user.email, secret);
    const waits = [];
    for (let lock = 0; lock < 3; lock++) {
      const res = await sendCode(await atCodeForm(user.email), wrongCode(secret));
      expect(res.json().code).toBe('mfa_locked');
      waits.push(Number(res.headers['retry-after']));
      clock.advance(Number(res.headers['retry-after']) * 1000 + 1);
    }
    expect(waits).toEqual([60, 120, 240]);
  });

  it('tells the user by email once per lock: until when, and that their password is known', async () => {
    const { user, secret } = await mfaUser();
    await useTheFreeCodes(user.email, secret);
    expect(await mailsOf(user.email, 'mfa_locked')).toBe(0);
    await sendCode(await atCodeForm(user.email), wrongCode(secret));
    const mail = await lastMail(a.db, user.email, 'mfa_locked');
    expect(mail.subject).toBe('Sign-in codes for your Moat account are paused');
    expect(mail.text).toContain('11 wrong sign-in codes');
    expect(mail.text).toMatch(/until \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(mail.text).toContain('knows your password');
    expect(mail.text).toContain('/#/auth/forgot-password');
    // Codes sent while it is locked are not evaluated, and no second mail is sent for this lock.
    for (let i = 0; i < 3; i++) await sendCode(await atCodeForm(user.email), wrongCode(secret));
    expect(await mailsOf(user.email, 'mfa_locked')).toBe(1);
    clock.advance(61_000);
    await sendCode(await atCodeForm(user.email), wrongCode(secret));
    expect(await mailsOf(user.email, 'mfa_locked')).toBe(2);
  });

  it('counts wrong codes sent to two nodes as one: the lock holds on both', async () => {
    const { user, secret } = await mfaUser();
    const nodes = [a, b];
    for (let s = 0; s < 2; s++) {
      const node = nodes[s]!;
      const jar = await atCodeForm(user.email, node);
      for (let i = 0; i < 5; i++) {
        // Each code of one sign-in goes to either node (its challenge is in the shared database).
        await sendCode(jar, wrongCode(secret), nodes[i % 2]);
      }
    }
    expect((await sendCode(await atCodeForm(user.email, b), wrongCode(secret), b)).json().code).toBe(
      'mfa_locked',
    );
    for (const node of nodes) {
      const res = await sendCode(await atCodeForm(user.email, node), totpCode(secret, clock.now()), node);
      expect(res.json().code).toBe('mfa_locked');
    }
  });

  it('a password reset lifts the lock: whoever knew the old password is out', async () => {
    const { user, secret } = await mfaUser();
    await useTheFreeCodes(user.email, secret);
    expect((await sendCode(await atCodeForm(user.email), wrongCode(secret))).json().code).toBe('mfa_locked');
    await postJson(a.app, new Jar(), AUTH_API.forgotPassword, {
      email: user.email,
      recaptcha_token: await solveCaptcha(a.app),
    });
    await new Promise((r) => setTimeout(r, 300));
    const token = /token=([A-Za-z0-9_-]{43})/.exec(
      (await lastMail(a.db, user.email, 'password_reset')).text,
    )?.[1];
    const reset = await postJson(a.app, new Jar(), AUTH_API.resetPassword, { token, newPassword: PASSWORD });
    expect(reset.json()).toEqual({ success: true });
    const res = await sendCode(await atCodeForm(user.email), totpCode(secret, clock.now()));
    expect(res.json()).toMatchObject({ success: true, next: 'done' });
  });
});

describe('POST /api/v1/auth/mail_verification/verify: wrong emailed codes count per user too', () => {
  it('after 10 wrong emailed codes over several sign-ins, the 11th locks the step and the right code is refused', async () => {
    const tenant = await buildTenant(a.db);
    await a.db.update(tenants).set({ mfaRequired: true }).where(eq(tenants.id, tenant.id));
    const user = await buildUser(a.db, tenant.id, {
      email: `m${Math.random().toString(16).slice(2, 10)}@${tenant.domain}`,
      passwordHash: await hashPassword(PASSWORD),
    });
    const signInForCode = async () => {
      const jar = new Jar();
      expect((await login(a.app, jar, user.email, PASSWORD)).json()).toMatchObject({
        next: 'mail_verification',
      });
      return { jar, code: codeIn((await lastMail(a.db, user.email, 'mail_verification')).text) };
    };
    const verify = (jar: Jar, code: string) =>
      postJson(a.app, jar, AUTH_API.mailVerificationVerify, { email: user.email, code });
    const other = (code: string) => (code === '000000' ? '111111' : '000000');
    // Each emailed code takes 3 tries: three sign-ins and a third of a fourth are the 10 free ones.
    const codes: string[] = [];
    for (let s = 0; s < 4; s++) {
      const { jar, code } = await signInForCode();
      for (let i = 0; i < (s < 3 ? 3 : 2); i++) codes.push((await verify(jar, other(code))).json().code);
    }
    expect(codes.slice(0, 10)).not.toContain('mfa_locked');
    expect(codes[10]).toBe('mfa_locked');
    const { jar, code } = await signInForCode();
    const right = await verify(jar, code);
    expect(right.statusCode).toBe(429);
    expect(right.json().code).toBe('mfa_locked');
    expect(right.headers['retry-after']).toBeDefined();
    expect(await mailsOf(user.email, 'mfa_locked')).toBe(1);
    const [row] = await a.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.mfaEnabled).toBe(false);
  });
});
