import { AUTH_API } from '@moat/contracts/auth-paths';
import { ACCOUNT_API } from '@moat/contracts/current-user';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, authThrottle, outbox, users } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { ServerKey } from '../../lib/server-key.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, lastMail, login, postJson, solveCaptcha } from '../../test/sign-in.ts';
import { DEVICE_COOKIE } from './auth.routes.ts';
import { createDeviceTrust } from './device-trust.ts';

/*
 * Wrong passwords must not let anyone lock the owner out. They are throttled per account and
 * client address (and per address over every account); an account that sees many failures from
 * everywhere asks new browsers for a stronger captcha instead of refusing them; a browser that
 * signed in to the account before (its device cookie) is let through the account's checks, not
 * its address's; refused attempts extend nothing; and the owner is told once.
 */

const clock = new ManualClock();
const PASSWORD = 'correct horse battery';
let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ clock, env: { CAPTCHA_DIFFICULTY: '10' } });
});
afterAll(() => t.close());

let net = 0;
/** A client address of its own (each test, each attacker), so no test shares one by chance. */
const address = () => {
  net += 1;
  return `10.${Math.floor(net / 250)}.${net % 250}.${(net * 7) % 250}`;
};

async function owner() {
  const tenant = await buildTenant(t.db);
  const user = await buildUser(t.db, tenant.id, {
    email: `o${Math.random().toString(16).slice(2, 10)}@${tenant.domain}`,
    passwordHash: await hashPassword(PASSWORD),
    passwordChangedAt: clock.now(),
  });
  return user;
}

/** `n` wrong passwords for `email`, each from its own address (a spread-out attack). */
async function fromEverywhere(email: string, n: number, captcha?: 'strong') {
  for (let i = 0; i < n; i++) {
    expect((await login(t.app, new Jar(address()), email, `wrong-${i}`, captcha)).statusCode).toBe(401);
  }
}

const throttleRow = async (key: string) =>
  (await t.db.select().from(authThrottle).where(eq(authThrottle.key, key)))[0];

const reasonsOf = async (userId: string) =>
  (
    await t.db
      .select({ details: auditLog.details })
      .from(auditLog)
      .where(and(eq(auditLog.action, 'auth.login_failed'), eq(auditLog.actorUserId, userId)))
      .orderBy(auditLog.id)
  ).map((r) => r.details.reason);

describe('POST /api/v1/auth/login: wrong passwords are throttled per account and client', () => {
  it('locks the attacking address out of the account, not the owner at another address', async () => {
    const user = await owner();
    const attacker = new Jar(address());
    for (let i = 0; i < 16; i++) await login(t.app, attacker, user.email, `wrong-${i}`);
    expect((await login(t.app, attacker, user.email, PASSWORD)).statusCode).toBe(401);
    const res = await login(t.app, new Jar(address()), user.email, PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ next: 'done' });
  });

  it("refuses a throttled address's attempts, the right password too, without extending its wait or the account's count", async () => {
    const user = await owner();
    const office = new Jar(address());
    for (let i = 0; i < 6; i++)
      expect((await login(t.app, office, user.email, `wrong-${i}`)).statusCode).toBe(401);
    // Five are free; the sixth makes this address wait a second. Attempts in that second are refused…
    for (let i = 0; i < 10; i++)
      expect((await login(t.app, office, user.email, `again-${i}`)).statusCode).toBe(401);
    expect((await login(t.app, office, user.email, PASSWORD)).statusCode).toBe(401);
    expect((await reasonsOf(user.id)).slice(-11)).toEqual(Array(11).fill('throttled'));
    // …and counted nowhere: a second later the right password from the same address signs in.
    expect((await throttleRow(`account:${user.email}`))?.failures).toBe(6);
    clock.advance(1_001);
    expect((await login(t.app, office, user.email, PASSWORD)).statusCode).toBe(200);
  });

  it('asks new browsers for the stronger captcha, not a refusal, once the account has seen more than 10 failures', async () => {
    const user = await owner();
    await fromEverywhere(user.email, 11);
    const standard = await login(t.app, new Jar(address()), user.email, PASSWORD);
    expect(standard.statusCode).toBe(400);
    expect(standard.json()).toMatchObject({ code: 'captcha_required' });
    expect(standard.json().message).toContain('stronger security check');
    const strong = await login(t.app, new Jar(address()), user.email, PASSWORD, 'strong');
    expect(strong.statusCode).toBe(200);
    // A wrong password with the stronger captcha is still only a wrong password.
    expect((await login(t.app, new Jar(address()), user.email, 'nope', 'strong')).statusCode).toBe(401);
    // An account that does not exist answers alike (no account oracle).
    await fromEverywhere(`ghost-${user.email}`, 11);
    const ghost = await login(t.app, new Jar(address()), `ghost-${user.email}`, PASSWORD);
    expect(ghost.json()).toMatchObject({ code: 'captcha_required', message: standard.json().message });
  });

  it('tells the owner once by email that their account is being attacked', async () => {
    const user = await owner();
    await fromEverywhere(user.email, 10);
    expect(await t.db.select().from(outbox).where(eq(outbox.toAddress, user.email))).toHaveLength(0);
    await fromEverywhere(user.email, 1);
    const mail = await lastMail(t.db, user.email, 'account_attacked');
    expect(mail.subject).toBe('Many failed sign-ins to your Moat account');
    expect(mail.text).toContain(`11 wrong passwords were tried for ${user.email}`);
    expect(mail.text).toContain('stronger security check');
    expect(mail.text).toContain('/#/auth/forgot-password');
    await fromEverywhere(user.email, 5, 'strong');
    const mails = await t.db
      .select()
      .from(outbox)
      .where(and(eq(outbox.toAddress, user.email), eq(outbox.kind, 'account_attacked')));
    expect(mails).toHaveLength(1);
  });
});

describe('the device cookie of a browser that signed in before', () => {
  it('is set at sign-in: HttpOnly, for the sign-in calls only, signed', async () => {
    const user = await owner();
    const res = await login(t.app, new Jar(address()), user.email, PASSWORD);
    const cookie = res.cookies.find((c) => c.name === DEVICE_COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/v1/auth' });
    expect(cookie!.maxAge).toBeGreaterThanOrEqual(90 * 86_400);
    expect(cookie!.value).not.toContain(user.id);
    expect(cookie!.value).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it("lets its browser through the account's checks: the attacked account and its address's lock on it", async () => {
    const user = await owner();
    const home = address();
    const laptop = new Jar(home);
    expect((await login(t.app, laptop, user.email, PASSWORD)).statusCode).toBe(200);
    expect(laptop.cookies[DEVICE_COOKIE]).toBeDefined();
    await postJson(t.app, laptop, AUTH_API.logout);
    // Attacked from everywhere, and from the owner's own address (a shared connection).
    await fromEverywhere(user.email, 11);
    const neighbour = new Jar(home);
    for (let i = 0; i < 6; i++) await login(t.app, neighbour, user.email, `wrong-${i}`, 'strong');
    expect((await login(t.app, neighbour, user.email, PASSWORD, 'strong')).statusCode).toBe(401);
    // The owner's browser signs in with the usual captcha, from the same address.
    const res = await login(t.app, laptop, user.email, PASSWORD);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ next: 'done' });
  });

  it('does not pass an address throttled over every account', async () => {
    const user = await owner();
    const cafe = address();
    const laptop = new Jar(cafe);
    expect((await login(t.app, laptop, user.email, PASSWORD)).statusCode).toBe(200);
    // 21 wrong passwords from this address for other accounts: the address waits.
    for (let i = 0; i < 21; i++) await login(t.app, new Jar(cafe), `someone-${i}@elsewhere.test`, 'wrong');
    expect((await login(t.app, laptop, user.email, PASSWORD)).statusCode).toBe(401);
    expect((await reasonsOf(user.id)).at(-1)).toBe('throttled');
  });

  it("is not trusted for another account, when signed with another server's key, or after a password change", async () => {
    const user = await owner();
    const other = await owner();
    const browser = new Jar(address());
    expect((await login(t.app, browser, other.email, PASSWORD)).statusCode).toBe(200);
    await fromEverywhere(user.email, 11);
    await fromEverywhere(other.email, 11);
    // Another account's device cookie: the stronger captcha is asked as of any new browser.
    expect((await login(t.app, browser, user.email, PASSWORD)).json().code).toBe('captcha_required');
    // A cookie for this account, signed with a key that is not this server's.
    const forged = createDeviceTrust(ServerKey.inMemory()).add(undefined, user, clock.now());
    const res = await t.app.inject({
      method: 'POST',
      url: AUTH_API.login,
      headers: CSRF,
      remoteAddress: address(),
      cookies: { [DEVICE_COOKIE]: forged },
      payload: { email: user.email, current_password: PASSWORD, recaptcha_token: await solveCaptcha(t.app) },
    });
    expect(res.json().code).toBe('captcha_required');
    // The browser's own account: trusted, until its password changes (then it signs in anew).
    const trusted = await login(t.app, browser, other.email, PASSWORD);
    expect(trusted.statusCode).toBe(200);
    clock.advance(1_000);
    await t.db.update(users).set({ passwordChangedAt: clock.now() }).where(eq(users.id, other.id));
    expect((await login(t.app, browser, other.email, PASSWORD)).json().code).toBe('captcha_required');
  });

  it('stops passing after 5 wrong passwords sent with it', async () => {
    const user = await owner();
    const stolen = new Jar(address());
    expect((await login(t.app, stolen, user.email, PASSWORD)).statusCode).toBe(200);
    await postJson(t.app, stolen, AUTH_API.logout);
    await fromEverywhere(user.email, 11);
    for (let i = 0; i < 6; i++) {
      // A fresh address each time: only the cookie ties these attempts together.
      const jar = new Jar(address());
      Object.assign(jar.cookies, stolen.cookies);
      expect((await login(t.app, jar, user.email, `wrong-${i}`)).statusCode).toBe(401);
    }
    const jar = new Jar(address());
    Object.assign(jar.cookies, stolen.cookies);
    expect((await login(t.app, jar, user.email, PASSWORD)).json().code).toBe('captcha_required');
  });
});

describe('the password entered again by a signed-in user', () => {
  it("is not blocked by outsiders' failed sign-ins, and has its own limit", async () => {
    const user = await owner();
    const jar = new Jar(address());
    await login(t.app, jar, user.email, PASSWORD);
    await fromEverywhere(user.email, 11);
    await fromEverywhere(user.email, 5, 'strong');
    const change = (current: string) =>
      postJson(t.app, jar, ACCOUNT_API.password, {
        current_password: current,
        new_password: 'a brand new password',
        confirm_password: 'a brand new password',
      });
    for (let i = 0; i < 6; i++) expect((await change(`wrong-${i}`)).statusCode).toBe(401);
    expect((await change(PASSWORD)).statusCode).toBe(401);
    clock.advance(1_001);
    expect((await change(PASSWORD)).json()).toEqual({ success: true });
  });
});

// Last: it moves the clock a day on (sessions opened earlier would be idle by then).
describe('the counts', () => {
  it('are forgotten by the housekeeping sweep once every rule has forgotten them', async () => {
    const user = await owner();
    await fromEverywhere(user.email, 2);
    expect((await throttleRow(`account:${user.email}`))?.failures).toBe(2);
    clock.advance(23 * 3_600_000);
    await t.app.services.sweeper.pass();
    expect((await throttleRow(`account:${user.email}`))?.failures).toBe(2);
    clock.advance(2 * 3_600_000);
    await t.app.services.sweeper.pass();
    expect(await throttleRow(`account:${user.email}`)).toBeUndefined();
  });
});
