import { AUTH_API, PASSWORD_CHANGE_REQUIRED_MESSAGE } from '@moat/contracts/auth-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, type tenants, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { newTotpSecret, totpCode } from '../../lib/totp.ts';
import { seedFirstTenant } from '../../seed.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { codeIn, Jar, lastMail, login, postJson } from '../../test/sign-in.ts';
import { MFA_SECRET_PURPOSE } from './mfa-challenge.service.ts';

/**
 * The first admin's generated password works once (issue 33): its first sign-in opens a session
 * that can do nothing but choose a new password and sign out, every other call refused with 403
 * password_change_required; the change ends that session, and the sign-in goes on with a new one
 * that offers MFA, or with the MFA setup the tenant requires.
 */
const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: { email: string; password: string };
beforeAll(async () => {
  t = await buildTestApp({ clock, env: { CAPTCHA_DIFFICULTY: '10' } });
  // The first start of an empty database, without ADMIN_PASSWORD, as `npm start` does it.
  const seeded = await seedFirstTenant(
    t.db,
    { adminEmail: 'root@first.test', adminPassword: undefined },
    clock,
  );
  admin = { email: seeded!.adminEmail, password: seeded!.generatedPassword! };
});
afterAll(() => t.close());

const me = (jar: Jar) =>
  t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: jar.cookies, remoteAddress: jar.ip });

const change = (jar: Jar, next: string, confirm = next) =>
  postJson(t.app, jar, AUTH_API.passwordChange, { new_password: next, confirm_password: confirm });

/** A user of a new tenant whose password is a one-time one. */
async function flaggedUser(
  password: string,
  overrides: Partial<typeof users.$inferInsert> = {},
  tenant: Partial<typeof tenants.$inferInsert> = {},
) {
  const { id, domain } = await buildTenant(t.db, tenant);
  return buildUser(t.db, id, {
    email: `first@${domain}`,
    role: 'admin',
    passwordHash: await hashPassword(password),
    passwordChangedAt: clock.now(),
    mustChangePassword: true,
    ...overrides,
  });
}

let sent = 0;
/** One call of a route with the session, the CSRF header, an empty body and made-up ids. */
function call(route: { method: string; url: string }, jar: Jar) {
  sent += 1;
  const url = route.url
    .replace(/:type\b/, 'gateway')
    .replace(/:[a-z_]+/gi, '00000000-0000-4000-8000-000000000000');
  return t.app.inject({
    method: route.method as 'GET',
    url,
    cookies: jar.cookies,
    headers: CSRF,
    remoteAddress: `10.8.${(sent >> 8) & 255}.${sent & 255}`,
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: {} }),
  });
}

describe('the first admin created without ADMIN_PASSWORD', () => {
  it('is marked: the generated password must be replaced; one given in ADMIN_PASSWORD is not', async () => {
    const [row] = await t.db.select().from(users).where(eq(users.email, admin.email));
    expect(row!.mustChangePassword).toBe(true);
    const other = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
    try {
      await seedFirstTenant(
        other.db,
        { adminEmail: 'root@given.test', adminPassword: 'given-password-1' },
        clock,
      );
      const jar = new Jar();
      const res = await login(other.app, jar, 'root@given.test', 'given-password-1');
      expect(res.json()).toMatchObject({ success: true, next: 'done' });
      const mine = await other.app.inject({
        method: 'GET',
        url: '/api/v1/current_user',
        cookies: jar.cookies,
      });
      expect(mine.statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('signs in to a session that may only choose a new password, then the old password is gone', async () => {
    const jar = new Jar();
    const first = await login(t.app, jar, admin.email, admin.password);
    expect(first.statusCode).toBe(200);
    expect(first.json()).toMatchObject({ success: true, next: 'password_change', email: admin.email });
    const restricted = jar.session!;
    expect(restricted).toBeDefined();

    // Every route that acts as the user is refused, whatever its guard or input.
    const refused = await me(jar);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'password_change_required',
      message: PASSWORD_CHANGE_REQUIRED_MESSAGE,
    });
    const allowed = [`POST ${AUTH_API.passwordChange}`, `POST ${AUTH_API.logout}`, `GET ${AUTH_API.session}`];
    const routes = t.app.routeAccess.filter(
      (r) => r.url.startsWith('/api/') && !r.url.includes('*') && !allowed.includes(`${r.method} ${r.url}`),
    );
    const guarded = routes.filter((r) => r.access !== 'public');
    expect(guarded.length).toBeGreaterThan(60);
    for (const route of guarded) {
      const res = await call(route, jar);
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(res.json().code, `${route.method} ${route.url}`).toBe('password_change_required');
    }
    // Routes open to anyone answer as to someone signed out: the sign-in page's own calls work.
    const features = await t.app.inject({
      method: 'GET',
      url: '/api/v1/generic/ui_features_public',
      cookies: jar.cookies,
    });
    expect(features.statusCode).toBe(200);
    // The sign-in page learns where the browser stands.
    const session = await t.app.inject({ method: 'GET', url: AUTH_API.session, cookies: jar.cookies });
    expect(session.json()).toEqual({
      authenticated: true,
      login_reason_required: false,
      password_change_required: true,
    });

    // The new password follows the rules: at least 8, confirmed, not the one-time password.
    const same = await change(jar, admin.password);
    expect(same.statusCode).toBe(400);
    expect(same.json().details).toEqual([{ field: 'body.new_password', message: 'password_unchanged' }]);
    const short = await change(jar, 'short');
    expect(short.statusCode).toBe(400);
    expect(short.json().details).toContainEqual({
      field: 'body.new_password',
      message: 'password_too_short',
    });
    const mismatch = await change(jar, 'a-new-password-1', 'a-new-password-2');
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().details).toContainEqual({
      field: 'body.confirm_password',
      message: 'passwords_do_not_match',
    });
    expect((await me(jar)).json().code).toBe('password_change_required');

    const changed = await change(jar, 'my-own-password-1');
    expect(changed.statusCode).toBe(200);
    // No MFA yet and the tenant does not require it: a full session, and MFA is offered.
    expect(changed.json()).toMatchObject({ success: true, next: 'mfa_offer', mfaWasSet: false });
    expect(jar.session).toBeDefined();
    expect(jar.session).not.toBe(restricted);
    expect((await me(jar)).statusCode).toBe(200);
    // The restricted session ended with the change.
    const old = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: restricted },
    });
    expect(old.statusCode).toBe(403);
    expect(old.json().code).toBe('forbidden');
    // MFA can be set up right away (the offer), or skipped: the session is a full one either way.
    const setup = await postJson(t.app, jar, AUTH_API.mfaSetup, { userEmail: admin.email }, 'PUT');
    expect(setup.statusCode).toBe(200);

    const [row] = await t.db.select().from(users).where(eq(users.email, admin.email));
    expect(row!.mustChangePassword).toBe(false);
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.one_time_password_replaced'), eq(auditLog.actorUserId, row!.id)));
    expect(audit).toHaveLength(1);
    expect((await lastMail(t.db, admin.email, 'password_changed')).subject).toBeTruthy();

    // The generated password no longer opens anything; the new one signs in straight to the console.
    const again = await login(t.app, new Jar(), admin.email, admin.password);
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('invalid_credentials');
    const next = new Jar();
    expect((await login(t.app, next, admin.email, 'my-own-password-1')).json()).toMatchObject({
      next: 'done',
    });
    expect((await me(next)).statusCode).toBe(200);
    // Not a one-time password any more: this call is refused.
    const notDue = await change(next, 'yet-another-password');
    expect(notDue.statusCode).toBe(409);
    expect(notDue.json().code).toBe('conflict');
  });

  it('a restricted session may sign out', async () => {
    const user = await flaggedUser('generated-password-1');
    const jar = new Jar();
    expect((await login(t.app, jar, user.email, 'generated-password-1')).json().next).toBe('password_change');
    const token = jar.session!;
    expect((await postJson(t.app, jar, AUTH_API.logout)).statusCode).toBe(200);
    const after = await t.app.inject({
      method: 'GET',
      url: AUTH_API.session,
      cookies: { [SESSION_COOKIE]: token },
    });
    expect(after.json().authenticated).toBe(false);
  });

  it('every way in leads to the change: a one-time sign-in link opens the same restricted session', async () => {
    const user = await flaggedUser('generated-password-2');
    const out = await t.app.inject({
      method: 'POST',
      url: '/internal/cli',
      headers: {
        authorization: 'Bearer test-bridge-token-0123456789abcdef',
        'content-type': 'application/json',
      },
      payload: { argv: ['auth:link', '--email', user.email], cwd: '/' },
    });
    const accessToken = /accessToken=([A-Za-z0-9_-]{43})/.exec(out.json().stdout)![1];
    const jar = new Jar();
    const res = await postJson(t.app, jar, AUTH_API.tokenLogin, { accessToken });
    expect(res.json()).toMatchObject({ next: 'password_change' });
    expect((await me(jar)).json().code).toBe('password_change_required');
  });

  it('where the tenant requires MFA: after the change, the required setup (mail code, then MFA) opens the session', async () => {
    const user = await flaggedUser('generated-password-3', {}, { mfaRequired: true });
    const jar = new Jar();
    const first = await login(t.app, jar, user.email, 'generated-password-3');
    expect(first.json().next).toBe('password_change');
    const changed = await change(jar, 'chosen-password-3');
    expect(changed.json()).toMatchObject({ success: true, next: 'mail_verification' });
    // No session until the required setup is done: the restricted one ended, its cookie is cleared.
    expect(jar.session).toBeUndefined();
    const code = codeIn((await lastMail(t.db, user.email, 'mail_verification')).text);
    const verified = await postJson(t.app, jar, AUTH_API.mailVerificationVerify, { email: user.email, code });
    expect(verified.json().next).toBe('mfa_setup');
    const setup = await postJson(t.app, jar, AUTH_API.mfaSetupPublic, { userEmail: user.email }, 'PUT');
    const { secret } = setup.json();
    const done = await postJson(t.app, jar, AUTH_API.mfaVerifyPublic, {
      userEmail: user.email,
      secret,
      code: totpCode(secret, clock.now()),
    });
    expect(done.json()).toMatchObject({ success: true, next: 'done' });
    expect((await me(jar)).statusCode).toBe(200);
  });

  it('a user who has MFA gives the code first, then replaces the password; no MFA offer then', async () => {
    const secret = newTotpSecret();
    const user = await flaggedUser('generated-password-4', {
      mfaEnabled: true,
      mfaSecret: t.serverKey.encrypt(MFA_SECRET_PURPOSE, secret),
    });
    const jar = new Jar();
    expect((await login(t.app, jar, user.email, 'generated-password-4')).json().next).toBe('mfa_code');
    expect(jar.session).toBeUndefined();
    clock.advance(30_000);
    const coded = await postJson(t.app, jar, AUTH_API.mfaCode, { code: totpCode(secret, clock.now()) });
    expect(coded.json()).toMatchObject({ success: true, next: 'password_change' });
    expect((await me(jar)).json().code).toBe('password_change_required');
    const changed = await change(jar, 'chosen-password-4');
    expect(changed.json()).toMatchObject({ success: true, next: 'done', mfaWasSet: true });
    expect((await me(jar)).statusCode).toBe(200);
  });
});
