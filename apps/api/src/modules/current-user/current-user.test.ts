import { SESSION_ID_HEADER } from '@moat/contracts/constants';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app.ts';
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
