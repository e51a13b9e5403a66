import { SESSION_ID_HEADER } from '@moat/contracts/constants';
import { ACCOUNT_API, SESSION_COOKIE } from '@moat/contracts/current-user';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, sessions, users } from '../../db/schema.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe('GET /api/v1/current_user', () => {
  it('answers 403 "not authenticated" without a session cookie', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/current_user' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'forbidden', message: 'not authenticated' });
  });

  it('answers 403 for a token that opens no session', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: 'made-up-token' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('answers the user of a live session, exactly the fields of SPEC §3, with the numeric session id header', async () => {
    const tenant = await buildTenant(t.db);
    const user = await buildUser(t.db, tenant.id, {
      email: 'ana@example.test',
      firstName: 'Ana',
      role: 'admin',
      viewPolicy: true,
      passwordHash: 'secret-hash-never-sent',
      preferences: { applicationMode: 'dark' },
    });
    const { session, token } = await buildSession(t.db, user);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: token },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers[SESSION_ID_HEADER]).toBe(String(session.id));
    expect(res.json()).toEqual({
      id: user.id,
      email: 'ana@example.test',
      first_name: 'Ana',
      last_name: '',
      role: 'admin',
      hidden: false,
      mfa_secret_set: false,
      on_boarding_required: false,
      automation_customer: false,
      view_private_data: false,
      view_policy: true,
      view_edit_policy: false,
      locked_status: { should_lock: false },
      user_preferences: { applicationMode: 'dark' },
    });
    expect(res.body).not.toContain('secret-hash-never-sent');
  });

  it('refuses a revoked, an expired and an idle session', async () => {
    const tenant = await buildTenant(t.db);
    const user = await buildUser(t.db, tenant.id);
    const revoked = await buildSession(t.db, user, { revokedAt: new Date() });
    const expired = await buildSession(t.db, user, { expiresAt: new Date(Date.now() - 1000) });
    const idle = await buildSession(t.db, user, { lastSeenAt: new Date(Date.now() - 31 * 60_000) });
    for (const { token } of [revoked, expired, idle]) {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/v1/current_user',
        cookies: { [SESSION_COOKIE]: token },
      });
      expect(res.statusCode).toBe(403);
    }
    // The idle session is now over for good, even if it were used again at once.
    const again = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: idle.token },
    });
    expect(again.statusCode).toBe(403);
  });
});

describe('My account: password and sessions', () => {
  async function account(password = 'old password 1') {
    const tenant = await buildTenant(t.db);
    const user = await buildUser(t.db, tenant.id, {
      email: `me${Date.now()}${Math.random().toString(36).slice(2, 6)}@acme.test`,
      passwordHash: await hashPassword(password),
    });
    const mine = await buildSession(t.db, user, { ip: '198.51.100.1', userAgent: 'Firefox' });
    const other = await buildSession(t.db, user, { ip: '203.0.113.5', userAgent: 'Chrome' });
    const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, token = mine.token) =>
      t.app.inject({ method, url, cookies: { [SESSION_COOKIE]: token }, headers: CSRF, payload });
    return { user, mine, other, call };
  }

  it('changes the password with the current one: other sessions end, this one stays, the user is told, audited', async () => {
    const { user, mine, other, call } = await account();
    const res = await call('POST', ACCOUNT_API.password, {
      current_password: 'old password 1',
      new_password: 'new password 22',
      confirm_password: 'new password 22',
    });
    expect(res.statusCode).toBe(200);
    const [stored] = await t.db.select().from(users).where(eq(users.id, user.id));
    expect(await verifyPassword(stored!.passwordHash!, 'new password 22')).toBe(true);
    expect((await call('GET', '/api/v1/current_user')).statusCode).toBe(200);
    expect((await call('GET', '/api/v1/current_user', undefined, other.token)).statusCode).toBe(403);
    const sessionsLeft = await t.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(sessionsLeft.filter((s) => !s.revokedAt).map((s) => s.id)).toEqual([mine.session.id]);
    const mails = await t.db.select().from(outbox).where(eq(outbox.toAddress, user.email));
    expect(mails.map((m) => m.kind)).toContain('password_changed');
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id));
    expect(audit.map((a) => a.action)).toContain('auth.password_changed');
  });

  it('refuses a wrong current password (401, audited), a new one equal to it or too short, or mismatched (400), changing nothing', async () => {
    const { user, call } = await account();
    const wrong = await call('POST', ACCOUNT_API.password, {
      current_password: 'not it at all',
      new_password: 'new password 22',
      confirm_password: 'new password 22',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().message).toBe('The password is not correct');
    for (const body of [
      {
        current_password: 'old password 1',
        new_password: 'old password 1',
        confirm_password: 'old password 1',
      },
      { current_password: 'old password 1', new_password: 'short', confirm_password: 'short' },
      {
        current_password: 'old password 1',
        new_password: 'new password 22',
        confirm_password: 'other one 22',
      },
      { current_password: 'old password 1', new_password: 'new password 22' },
    ]) {
      expect((await call('POST', ACCOUNT_API.password, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    const [stored] = await t.db.select().from(users).where(eq(users.id, user.id));
    expect(await verifyPassword(stored!.passwordHash!, 'old password 1')).toBe(true);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id));
    expect(audit.map((a) => a.action)).toEqual(['auth.password_change_failed']);
  });

  it('lists the open sessions, ends one or every other, never another user’s, and not the one in use', async () => {
    const { user, mine, other, call } = await account();
    const listed = (await call('GET', ACCOUNT_API.sessions)).json().sessions;
    expect(listed).toHaveLength(2);
    expect(listed.find((s: { current: boolean }) => s.current)).toMatchObject({
      id: String(mine.session.id),
      ip: '198.51.100.1',
      user_agent: 'Firefox',
    });
    const stranger = await account();
    const url = (id: number) => ACCOUNT_API.session.replace(':id', String(id));
    expect((await call('DELETE', url(stranger.other.session.id))).statusCode).toBe(404);
    expect(
      (await stranger.call('GET', '/api/v1/current_user', undefined, stranger.other.token)).statusCode,
    ).toBe(200);
    expect((await call('DELETE', url(mine.session.id))).statusCode).toBe(400);
    expect((await call('DELETE', url(other.session.id))).statusCode).toBe(200);
    expect((await call('DELETE', url(other.session.id))).statusCode).toBe(404);
    expect((await call('GET', ACCOUNT_API.sessions)).json().sessions).toHaveLength(1);
    await buildSession(t.db, user);
    await buildSession(t.db, user);
    expect((await call('POST', ACCOUNT_API.endOtherSessions, {})).json()).toEqual({ ended: 2 });
    expect((await call('GET', ACCOUNT_API.sessions)).json().sessions).toHaveLength(1);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.actorUserId, user.id));
    expect(audit.filter((a) => a.action === 'auth.sessions_end').map((a) => a.details)).toEqual([
      { session: String(other.session.id) },
      { others: 2 },
    ]);
    expect((await t.app.inject({ method: 'GET', url: ACCOUNT_API.sessions })).statusCode).toBe(403);
  });
});
