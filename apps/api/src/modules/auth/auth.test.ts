import { AUTH_API, INVALID_CREDENTIALS_MESSAGE } from '@moat/contracts/auth-paths';
import { SESSION_ID_HEADER } from '@moat/contracts/constants';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, authThrottle, tenants, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { totpCode } from '../../lib/totp.ts';
import { buildTestApp } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { codeIn, Jar, lastMail, login, postJson, solveCaptcha } from '../../test/sign-in.ts';
import { createAuditRepo } from '../audit/audit.repo.ts';
import { createUsersRepo } from '../users/users.repo.ts';
import { createLoginLink } from './login-links.ts';
import { createUserTokensRepo } from './user-tokens.repo.ts';

const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
let password: string;
beforeAll(async () => {
  t = await buildTestApp({ clock, env: { CAPTCHA_DIFFICULTY: '10', MAINTENANCE_DOMAINS: 'provider.test' } });
  password = 'correct horse battery';
});
afterAll(() => t.close());

async function makeUser(
  overrides: Partial<typeof users.$inferInsert> = {},
  tenantOverrides: Partial<typeof tenants.$inferInsert> = {},
) {
  const tenant = await buildTenant(t.db, tenantOverrides);
  const user = await buildUser(t.db, tenant.id, {
    passwordHash: await hashPassword(password),
    passwordChangedAt: clock.now(),
    email: `u${Math.random().toString(16).slice(2, 10)}@${tenant.domain}`,
    ...overrides,
  });
  return { tenant, user };
}

const me = (jar: Jar) =>
  t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: jar.cookies, remoteAddress: jar.ip });

describe('POST /api/v1/auth/login', () => {
  it('opens a session for the right password: HttpOnly cookie, session id header, audit entry', async () => {
    const { user } = await makeUser();
    const jar = new Jar();
    const res = await login(t.app, jar, user.email, password);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      next: 'done',
      email: user.email,
      mfaWasSet: false,
      automation_customer: false,
      login_reason_required: false,
    });
    const cookie = res.cookies.find((c) => c.name === SESSION_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const current = await me(jar);
    expect(current.statusCode).toBe(200);
    expect(current.json().email).toBe(user.email);
    expect(current.headers[SESSION_ID_HEADER]).toMatch(/^\d+$/);
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.login'), eq(auditLog.actorUserId, user.id)));
    expect(audit).toHaveLength(1);
  });

  it('answers a wrong password and an unknown account exactly alike', async () => {
    const { user } = await makeUser();
    const wrong = await login(t.app, new Jar(), user.email, 'not the password');
    const unknown = await login(t.app, new Jar(), 'nobody@nowhere.test', 'not the password');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.cookies).toEqual([]);
    }
    const strip = (body: Record<string, unknown>) => ({ ...body, reqId: '' });
    expect(strip(wrong.json())).toEqual(strip(unknown.json()));
    expect(wrong.json()).toMatchObject({ code: 'invalid_credentials', message: INVALID_CREDENTIALS_MESSAGE });
    const failures = await t.db.select().from(auditLog).where(eq(auditLog.action, 'auth.login_failed'));
    expect(failures.map((f) => f.details.reason)).toEqual(
      expect.arrayContaining(['wrong_password', 'unknown_account']),
    );
  });

  it('refuses a missing, forged or reused captcha before looking at the password', async () => {
    const { user } = await makeUser();
    const missing = await postJson(t.app, new Jar(), AUTH_API.login, {
      email: user.email,
      current_password: password,
    });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('captcha_failed');
    const forged = await postJson(t.app, new Jar(), AUTH_API.login, {
      email: user.email,
      current_password: password,
      recaptcha_token: Buffer.from('{"challenge":{},"solution":{}}').toString('base64'),
    });
    expect(forged.json().code).toBe('captcha_failed');
    const token = await solveCaptcha(t.app);
    const body = { email: user.email, current_password: password, recaptcha_token: token };
    expect((await postJson(t.app, new Jar(), AUTH_API.login, body)).statusCode).toBe(200);
    const replay = await postJson(t.app, new Jar(), AUTH_API.login, body);
    expect(replay.json().code).toBe('captcha_failed');
  });

  it('refuses a state-changing call without the CSRF header', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: AUTH_API.login,
      payload: { email: 'a@b.test', current_password: 'x' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('validates the form: email format and a password', async () => {
    const res = await postJson(t.app, new Jar(), AUTH_API.login, {
      email: 'not-an-email',
      current_password: '',
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .details.map((d: { field: string }) => d.field)
        .sort(),
    ).toEqual(['body.current_password', 'body.email']);
  });

  it('throttles 20 wrong passwords from one address: the right one from there is refused alike until the wait ends', async () => {
    const { user } = await makeUser();
    const jar = new Jar('192.0.2.20');
    for (let i = 0; i < 20; i++) {
      expect((await login(t.app, jar, user.email, `wrong-${i}`)).statusCode).toBe(401);
    }
    const refused = await login(t.app, jar, user.email, password);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({
      code: 'invalid_credentials',
      message: INVALID_CREDENTIALS_MESSAGE,
    });
    const throttled = await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id));
    expect(throttled.at(-1)?.details).toMatchObject({ reason: 'throttled' });
    // Five were free, the sixth made this address wait a second; the refused ones extended nothing.
    clock.advance(1_001);
    expect((await login(t.app, jar, user.email, password)).statusCode).toBe(200);
  });

  it('counts a parallel burst like a series: no failure is lost, so the right password is refused after it', async () => {
    const { user } = await makeUser();
    const jar = new Jar('192.0.2.21');
    const tokens = await Promise.all(Array.from({ length: 8 }, () => solveCaptcha(t.app)));
    // The order in which a burst is served is not defined; what must hold is that its attempts
    // are taken in turn however many run at once: five free, the sixth makes the address wait,
    // the last two are refused unevaluated.
    const results = await Promise.all(
      tokens.map((token, i) =>
        postJson(t.app, jar, AUTH_API.login, {
          email: user.email,
          current_password: `wrong-${i}`,
          recaptcha_token: token,
        }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(8).fill(401));
    const [row] = await t.db
      .select()
      .from(authThrottle)
      .where(eq(authThrottle.key, `account-address:${user.email.toLowerCase()}|${jar.ip}`));
    expect(row?.failures).toBe(6);
    const reasons = (await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id))).map(
      (e) => e.details.reason,
    );
    expect(reasons.filter((r) => r === 'wrong_password')).toHaveLength(6);
    expect(reasons.filter((r) => r === 'throttled')).toHaveLength(2);
    const refused = await login(t.app, jar, user.email, password);
    expect(refused.statusCode).toBe(401);
    const events = await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id));
    expect(events.at(-1)?.details).toMatchObject({ reason: 'throttled' });
  });

  it('closes the console to a locked account: only who it is can be read', async () => {
    const { user } = await makeUser({ locked: true });
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    expect((await me(jar)).json().locked_status).toEqual({ should_lock: true });
    const res = await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('This account is locked');
  });

  it('lets an automation customer in without MFA even when MFA is set', async () => {
    const { user } = await makeUser({ automationCustomer: true, mfaEnabled: true, mfaSecret: 'v1.x.y.z' });
    const res = await login(t.app, new Jar(), user.email, password);
    expect(res.json()).toMatchObject({ next: 'done', automation_customer: true });
  });

  it('sends an expired password to the password-expired page, which changes it inside that login only', async () => {
    const { user } = await makeUser(
      { passwordChangedAt: new Date(clock.now().getTime() - 91 * 86_400_000) },
      { passwordMaxAgeDays: 90 },
    );
    const body = (newPassword: string, confirm = newPassword) => ({
      email: user.email,
      current_password: password,
      new_password: newPassword,
      confirm_password: confirm,
    });
    // Without the expired login's challenge: refused, even with the right password.
    const outside = await postJson(t.app, new Jar(), AUTH_API.passwordExpired, body('a brand new one'));
    expect(outside.statusCode).toBe(401);
    expect(outside.json().code).toBe('login_expired');

    const jar = new Jar();
    const res = await login(t.app, jar, user.email, password);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toContain('Expiration error, password has expired');
    expect(jar.cookies.moat_login).toBeDefined();
    expect((await postJson(t.app, jar, AUTH_API.passwordExpired, body(password))).statusCode).toBe(400);
    const mismatch = await postJson(
      t.app,
      jar,
      AUTH_API.passwordExpired,
      body('a brand new one', 'something else'),
    );
    expect(mismatch.json().details[0].field).toBe('body.confirm_password');
    const changed = await postJson(t.app, jar, AUTH_API.passwordExpired, body('a brand new one'));
    expect(changed.json()).toEqual({ success: true });
    expect(jar.session).toBeUndefined();
    const again = await postJson(t.app, jar, AUTH_API.passwordExpired, body('yet another one'));
    expect(again.statusCode).toBe(401);
    expect((await login(t.app, new Jar(), user.email, 'a brand new one')).json().next).toBe('done');
  });

  it('does not let a password that has not expired be changed through the expired-password call', async () => {
    const { user } = await makeUser();
    const jar = new Jar();
    expect((await login(t.app, jar, user.email, password)).json().next).toBe('done');
    const res = await postJson(t.app, jar, AUTH_API.passwordExpired, {
      email: user.email,
      current_password: password,
      new_password: 'taken over',
      confirm_password: 'taken over',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('maintenance rule and hidden users', () => {
  it('blocks a hidden user while the tenant has support access off, with the approval notice', async () => {
    const { user, tenant } = await makeUser({ hidden: true });
    const res = await login(t.app, new Jar(), user.email, password);
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tenant_approval_required');
    await t.db.update(tenants).set({ supportAccessEnabled: true }).where(eq(tenants.id, tenant.id));
    expect((await login(t.app, new Jar(), user.email, password)).statusCode).toBe(200);
  });

  it('asks a maintenance-domain user for a login reason, logs it as Login-Reason, and holds the console until then', async () => {
    const tenant = await buildTenant(t.db);
    await t.app.services.tenants.setFeatures(tenant.id, { blockMaintenanceLogin: true }, { type: 'system' });
    const user = await buildUser(t.db, tenant.id, {
      email: 'support@provider.test',
      passwordHash: await hashPassword(password),
    });
    const jar = new Jar();
    const res = await login(t.app, jar, user.email, password);
    expect(res.json()).toMatchObject({ next: 'done', login_reason_required: true });
    const held = await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email });
    expect(held.statusCode).toBe(403);
    expect(held.json().code).toBe('login_reason_required');
    expect((await me(jar)).statusCode).toBe(200);
    const empty = await postJson(t.app, jar, AUTH_API.loginReason, { loginReason: '   ' });
    expect(empty.statusCode).toBe(400);
    expect((await postJson(t.app, jar, AUTH_API.loginReason, { loginReason: 'Ticket 4711' })).json()).toEqual(
      { success: true },
    );
    const [entry] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'Login-Reason'), eq(auditLog.actorUserId, user.id)));
    expect(entry!.details).toEqual({ loginReason: 'Ticket 4711' });
    expect((await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email })).statusCode).toBe(200);
  });
});

describe('MFA required by the admin, then the one-time-code form', () => {
  it('mail code → setup → first code signs in; next sign-in takes the next code and refuses a replay', async () => {
    const { user } = await makeUser({}, { mfaRequired: true });
    const jar = new Jar();
    const first = await login(t.app, jar, user.email, password);
    expect(first.json()).toMatchObject({ next: 'mail_verification', mfaWasSet: false });
    expect(jar.session).toBeUndefined();
    // MFA setup is refused before the emailed code is proven.
    expect(
      (await postJson(t.app, jar, AUTH_API.mfaSetupPublic, { userEmail: user.email }, 'PUT')).statusCode,
    ).toBe(401);

    const mail = await lastMail(t.db, user.email, 'mail_verification');
    expect(mail.subject).toBe('Your Moat verification code');
    expect(mail.html).toContain('<p style="margin:16px 0;font-size:32px');
    const code = codeIn(mail.text);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, {
      email: user.email,
      code: wrongCode,
    });
    expect(wrong.statusCode).toBe(403);
    expect(wrong.json().code).toBe('invalid_code');
    const right = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, { email: user.email, code });
    expect(right.json()).toMatchObject({ success: true, next: 'mfa_setup' });

    const setup = await postJson(t.app, jar, AUTH_API.mfaSetupPublic, { userEmail: user.email }, 'PUT');
    expect(setup.statusCode).toBe(200);
    const { secret, qrCodeSrc, otpauthUrl } = setup.json();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(qrCodeSrc).toMatch(/^data:image\/png;base64,/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    const badCode = await postJson(t.app, jar, AUTH_API.mfaVerifyPublic, {
      userEmail: user.email,
      secret,
      code: '000000',
    });
    expect(badCode.json().success).toBe(false);
    const verified = await postJson(t.app, jar, AUTH_API.mfaVerifyPublic, {
      userEmail: user.email,
      secret,
      code: totpCode(secret, clock.now()),
    });
    expect(verified.json()).toMatchObject({ success: true, next: 'done', mfaWasSet: true });
    expect(jar.session).toBeDefined();
    expect((await me(jar)).json().mfa_secret_set).toBe(true);
    const [row] = await t.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.mfaSecret).toMatch(/^v1\./);
    expect(row!.mfaSecret).not.toContain(secret);

    await postJson(t.app, jar, AUTH_API.logout);
    expect((await me(jar)).statusCode).toBe(403);

    // The same code (same time step) again: refused. The next step's code: accepted.
    const second = new Jar();
    expect((await login(t.app, second, user.email, password)).json()).toMatchObject({
      next: 'mfa_code',
      mfaWasSet: true,
    });
    const replay = await postJson(t.app, second, AUTH_API.mfaCode, { code: totpCode(secret, clock.now()) });
    expect(replay.json().success).toBe(false);
    expect(second.session).toBeUndefined();
    clock.advance(30_000);
    const next = await postJson(t.app, second, AUTH_API.mfaCode, { code: totpCode(secret, clock.now()) });
    expect(next.json()).toMatchObject({ success: true, next: 'done' });
    expect((await me(second)).statusCode).toBe(200);
  });

  it('three wrong mail codes reach the maximum: then even the right code is refused', async () => {
    const { user } = await makeUser({}, { mfaRequired: true });
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    const code = codeIn((await lastMail(t.db, user.email, 'mail_verification')).text);
    const wrongCode = code === '000000' ? '111111' : '000000';
    const codes = [];
    for (let i = 0; i < 3; i++) {
      const res = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, {
        email: user.email,
        code: wrongCode,
      });
      expect(res.statusCode).toBe(403);
      codes.push(res.json().code);
    }
    expect(codes).toEqual(['invalid_code', 'invalid_code', 'max_attempts_reached']);
    const right = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, { email: user.email, code });
    expect(right.statusCode).toBe(403);
    expect(right.json().code).toBe('max_attempts_reached');
  });

  it('a mail code expires after 10 minutes, and a resend waits for wait_time', async () => {
    const { user } = await makeUser({}, { mfaRequired: true });
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    const early = await postJson(t.app, jar, AUTH_API.mailVerificationSend);
    expect(early.json()).toMatchObject({ success: false });
    expect(early.json().wait_time).toBeGreaterThan(0);
    const code = codeIn((await lastMail(t.db, user.email, 'mail_verification')).text);
    clock.advance(9 * 60_000);
    const resent = await postJson(t.app, jar, AUTH_API.mailVerificationSend);
    expect(resent.json()).toEqual({ success: true, wait_time: 30 });
    const old = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, { email: user.email, code });
    expect(old.statusCode).toBe(403);
    const fresh = codeIn((await lastMail(t.db, user.email, 'mail_verification')).text);
    clock.advance(10 * 60_000 + 1);
    const late = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, {
      email: user.email,
      code: fresh,
    });
    expect(late.statusCode).toBe(401);
    expect(late.json().code).toBe('login_expired');
  });

  it('gives a sign-in at most five emailed codes', async () => {
    const { user } = await makeUser({}, { mfaRequired: true });
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    for (let i = 0; i < 4; i++) {
      clock.advance(31_000);
      expect((await postJson(t.app, jar, AUTH_API.mailVerificationSend)).json().success).toBe(true);
    }
    clock.advance(31_000);
    const sixth = await postJson(t.app, jar, AUTH_API.mailVerificationSend);
    expect(sixth.statusCode).toBe(429);
  });

  it('five wrong one-time codes end the sign-in with 429', async () => {
    const { user } = await makeUser({}, { mfaRequired: true });
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    await postJson(t.app, jar, AUTH_API.mailVerificationVerify, {
      email: user.email,
      code: codeIn((await lastMail(t.db, user.email, 'mail_verification')).text),
    });
    const { secret } = (
      await postJson(t.app, jar, AUTH_API.mfaSetupPublic, { userEmail: user.email }, 'PUT')
    ).json();
    await postJson(t.app, jar, AUTH_API.mfaVerifyPublic, {
      userEmail: user.email,
      secret,
      code: totpCode(secret, clock.now()),
    });
    const second = new Jar();
    await login(t.app, second, user.email, password);
    const statuses = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await postJson(t.app, second, AUTH_API.mfaCode, { code: '000000' })).statusCode);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const after = await postJson(t.app, second, AUTH_API.mfaCode, { code: totpCode(secret, clock.now()) });
    expect(after.statusCode).toBe(401);
  });
});

describe('MFA of a signed-in user', () => {
  it('suggestion → setup → verified → active, and off again only with the password', async () => {
    const { user } = await makeUser();
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    const settings = await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email });
    expect(settings.json()).toEqual({
      mfaWasSet: false,
      isMfaEnabled: false,
      isVerified: false,
      mfaRequired: false,
    });
    const other = await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: 'someone@else.test' });
    expect(other.statusCode).toBe(403);
    const { secret } = (
      await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email }, 'PUT')
    ).json();
    const ok = await postJson(t.app, jar, AUTH_API.mfaVerifySetup, {
      userEmail: user.email,
      secret,
      code: totpCode(secret, clock.now()),
    });
    expect(ok.json()).toEqual({ success: true });
    expect(
      (await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: user.email })).json().isMfaEnabled,
    ).toBe(true);
    const wrongPassword = await postJson(
      t.app,
      jar,
      AUTH_API.mfaDisable(user.email),
      { password: 'nope' },
      'DELETE',
    );
    expect(wrongPassword.statusCode).toBe(401);
    const off = await postJson(t.app, jar, AUTH_API.mfaDisable(user.email), { password }, 'DELETE');
    expect(off.json()).toEqual({ success: true });
    expect((await login(t.app, new Jar(), user.email, password)).json().next).toBe('done');
  });

  it('cannot turn off MFA that the admin requires', async () => {
    const { user } = await makeUser();
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    await t.db.update(users).set({ mfaRequired: true }).where(eq(users.id, user.id));
    const res = await postJson(t.app, jar, AUTH_API.mfaDisable(user.email), { password }, 'DELETE');
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('mfa_required_by_admin');
  });

  it('answers 403 not authenticated to the MFA calls without a session', async () => {
    const res = await postJson(t.app, new Jar(), AUTH_API.mfaSetup, { userEmail: 'x@y.test' });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('not authenticated');
  });
});

describe('forgot and reset password', () => {
  it('answers the same for any address; emails a single-use link; the reset ends every session and tells the user', async () => {
    const { user } = await makeUser();
    const session = new Jar();
    await login(t.app, session, user.email, password);
    const known = await postJson(t.app, new Jar(), AUTH_API.forgotPassword, {
      email: user.email,
      recaptcha_token: await solveCaptcha(t.app),
    });
    const unknown = await postJson(t.app, new Jar(), AUTH_API.forgotPassword, {
      email: 'ghost@nowhere.test',
      recaptcha_token: await solveCaptcha(t.app),
    });
    expect(known.json()).toEqual({ success: true });
    expect(unknown.json()).toEqual({ success: true });
    await new Promise((r) => setTimeout(r, 300));
    const mail = await lastMail(t.db, user.email, 'password_reset');
    const token = /reset-password\?token=([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    expect(token).toBeDefined();
    const short = await postJson(t.app, new Jar(), AUTH_API.resetPassword, { token, newPassword: 'short' });
    expect(short.statusCode).toBe(400);
    const reset = await postJson(t.app, new Jar(), AUTH_API.resetPassword, {
      token,
      newPassword: 'the new password',
    });
    expect(reset.json()).toEqual({ success: true });
    expect((await me(session)).statusCode).toBe(403);
    expect((await lastMail(t.db, user.email, 'password_changed')).subject).toBe(
      'Your Moat password was changed',
    );
    const again = await postJson(t.app, new Jar(), AUTH_API.resetPassword, {
      token,
      newPassword: 'another password',
    });
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('invalid_token');
    expect((await login(t.app, new Jar(), user.email, 'the new password')).statusCode).toBe(200);
  });

  it('refuses a reset link after 30 minutes', async () => {
    const { user } = await makeUser();
    await postJson(t.app, new Jar(), AUTH_API.forgotPassword, {
      email: user.email,
      recaptcha_token: await solveCaptcha(t.app),
    });
    await new Promise((r) => setTimeout(r, 300));
    const token = /token=([A-Za-z0-9_-]{43})/.exec(
      (await lastMail(t.db, user.email, 'password_reset')).text,
    )?.[1];
    clock.advance(30 * 60_000 + 1);
    const res = await postJson(t.app, new Jar(), AUTH_API.resetPassword, {
      token,
      newPassword: 'the new password',
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('one-time sign-in links and logout', () => {
  it('signs in once with a CLI link, then refuses the same token', async () => {
    const { user } = await makeUser();
    const out = await t.app.inject({
      method: 'POST',
      url: '/internal/cli',
      headers: {
        authorization: 'Bearer test-bridge-token-0123456789abcdef',
        'content-type': 'application/json',
      },
      payload: { argv: ['auth:link', '--email', user.email], cwd: '/' },
    });
    const accessToken = /accessToken=([A-Za-z0-9_-]{43})/.exec(out.json().stdout)?.[1];
    expect(accessToken).toBeDefined();
    const jar = new Jar();
    const first = await postJson(t.app, jar, AUTH_API.tokenLogin, { accessToken });
    expect(first.json()).toMatchObject({ success: true, next: 'done' });
    expect((await me(jar)).statusCode).toBe(200);
    const second = await postJson(t.app, new Jar(), AUTH_API.tokenLogin, { accessToken });
    expect(second.statusCode).toBe(401);
  });

  it('a sign-in link of a hidden user needs the tenant to allow support access', async () => {
    const { user } = await makeUser({ hidden: true });
    const link = await createLoginLink(
      {
        clock,
        publicUrl: 'https://moat.test',
        users: createUsersRepo(t.db),
        userTokens: createUserTokensRepo(t.db),
        audit: createAuditRepo(t.db),
      },
      user.email,
      { type: 'cli' },
    );
    const accessToken = /accessToken=([A-Za-z0-9_-]{43})/.exec(link)![1];
    const res = await postJson(t.app, new Jar(), AUTH_API.tokenLogin, { accessToken });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('tenant_approval_required');
  });

  it('logout ends the session on the server: the old cookie opens nothing', async () => {
    const { user } = await makeUser();
    const jar = new Jar();
    await login(t.app, jar, user.email, password);
    const token = jar.session!;
    await postJson(t.app, jar, AUTH_API.logout);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: token },
    });
    expect(res.statusCode).toBe(403);
  });
});
