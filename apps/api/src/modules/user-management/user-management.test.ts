import { AUTH_API } from '@moat/contracts/auth-paths';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { USERS_API } from '@moat/contracts/users';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, outbox, users } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_URL: 'https://moat.example.test' } });
});
afterAll(() => t.close());

let n = 0;
/** An admin of a fresh tenant on its own domain, and calls made as them. */
async function adminOfNewTenant() {
  const domain = `org${++n}${Date.now()}.test`;
  const admin = await signedInAs(t.app, t.db, {
    tenant: { domain } as never,
    user: { email: `boss@${domain}`, role: 'admin' },
  });
  const call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) =>
    t.app.inject({ method, url, cookies: admin.cookies, headers: CSRF, payload });
  return { ...admin, domain, call };
}
const userUrl = (path: string, id: string) => path.replace(':id', id);

async function outboxTo(email: string) {
  return t.db.select().from(outbox).where(eq(outbox.toAddress, email));
}

describe('User Management: invitations', () => {
  it('invites a user of the organisation by email; the link sets a password once; audited', async () => {
    const { call, domain, tenant } = await adminOfNewTenant();
    const res = await call('POST', USERS_API.users, {
      email: `Kim@${domain}`,
      role: 'user',
      first_name: 'Kim',
    });
    expect(res.statusCode).toBe(200);
    const invited = res.json();
    expect(invited).toMatchObject({
      email: `kim@${domain}`,
      role: 'user',
      status: 'invited',
      first_name: 'Kim',
      last_sign_in_at: null,
      is_you: false,
    });
    expect(Date.parse(invited.invite_expires_at) - Date.now()).toBeGreaterThan(6.9 * 86_400_000);
    const [mail] = await outboxTo(`kim@${domain}`);
    expect(mail).toMatchObject({ kind: 'user_invite', subject: 'You are invited to Moat' });
    expect(mail!.text).toContain(`boss@${domain} invited kim@${domain}`);
    const token = /reset-password\?token=([\w-]+)/.exec(mail!.text)![1]!;
    const set = await t.app.inject({
      method: 'POST',
      url: AUTH_API.resetPassword,
      headers: CSRF,
      payload: { token, newPassword: 'kims password 1' },
    });
    expect(set.statusCode).toBe(200);
    const [kim] = await t.db
      .select()
      .from(users)
      .where(eq(users.email, `kim@${domain}`));
    expect(kim!.status).toBe('active');
    const again = await t.app.inject({
      method: 'POST',
      url: AUTH_API.resetPassword,
      headers: CSRF,
      payload: { token, newPassword: 'another one 22' },
    });
    expect(again.statusCode).toBe(401);
    const audit = await t.db.select().from(auditLog).where(eq(auditLog.tenantId, tenant.id));
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['user.invite', 'auth.invite_accepted']),
    );
  });

  it("refuses an address outside the organisation's domains, one that exists, or a bad body, sending nothing", async () => {
    const { call, domain } = await adminOfNewTenant();
    const outside = await call('POST', USERS_API.users, { email: 'eve@elsewhere.test', role: 'admin' });
    expect(outside.statusCode).toBe(400);
    expect(outside.json().message).toContain(domain);
    expect((await call('POST', USERS_API.users, { email: `boss@${domain}`, role: 'user' })).statusCode).toBe(
      409,
    );
    for (const body of [
      { email: 'not an address', role: 'user' },
      { email: `a@${domain}`, role: 'owner' },
      { email: `a@${domain}`, role: 'user', first_name: '<script>' },
      { email: `a@${domain}`, role: 'user', extra: true },
    ]) {
      expect((await call('POST', USERS_API.users, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect(await outboxTo('eve@elsewhere.test')).toHaveLength(0);
    expect(await outboxTo(`a@${domain}`)).toHaveLength(0);
  });

  it('sends a new link to an invited user only, and the old link stops working', async () => {
    const { call, domain } = await adminOfNewTenant();
    const invited = (await call('POST', USERS_API.users, { email: `lee@${domain}`, role: 'user' })).json();
    const first = /token=([\w-]+)/.exec((await outboxTo(`lee@${domain}`))[0]!.text)![1]!;
    expect((await call('POST', userUrl(USERS_API.resendInvite, invited.id), {})).statusCode).toBe(200);
    const mails = await outboxTo(`lee@${domain}`);
    expect(mails).toHaveLength(2);
    const old = await t.app.inject({
      method: 'POST',
      url: AUTH_API.resetPassword,
      headers: CSRF,
      payload: { token: first, newPassword: 'lees password 1' },
    });
    expect(old.statusCode).toBe(401);
    const me = (await call('GET', `${USERS_API.users}?q=boss`)).json().items[0];
    expect((await call('POST', userUrl(USERS_API.resendInvite, me.id), {})).statusCode).toBe(409);
  });
});

describe('User Management: changes', () => {
  it('disables a user, ending their sessions at once, and enables them again; audited', async () => {
    const { call, tenant, domain } = await adminOfNewTenant();
    const kim = await buildUser(t.db, tenant.id, {
      email: `kim@${domain}`,
      passwordHash: 'x',
      status: 'active',
    });
    const { token } = await buildSession(t.db, kim);
    const asKim = () =>
      t.app.inject({ method: 'GET', url: '/api/v1/current_user', cookies: { [SESSION_COOKIE]: token } });
    expect((await asKim()).statusCode).toBe(200);
    const off = await call('PATCH', userUrl(USERS_API.user, kim.id), { disabled: true });
    expect(off.statusCode).toBe(200);
    expect(off.json().status).toBe('disabled');
    expect((await asKim()).statusCode).toBe(403);
    const on = await call('PATCH', userUrl(USERS_API.user, kim.id), { disabled: false });
    expect(on.json().status).toBe('active');
    const audit = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenant.id), eq(auditLog.targetId, kim.id)));
    expect(audit.map((a) => a.action)).toEqual(['user.disable', 'user.enable']);
  });

  it('sets role, flags, names and the MFA requirement', async () => {
    const { call, tenant, domain } = await adminOfNewTenant();
    const kim = await buildUser(t.db, tenant.id, { email: `kim@${domain}` });
    const res = await call('PATCH', userUrl(USERS_API.user, kim.id), {
      role: 'admin',
      view_policy: true,
      view_edit_policy: true,
      view_private_data: true,
      hidden: true,
      mfa_required: true,
      first_name: 'Kim',
      last_name: 'Ng',
    });
    expect(res.json()).toMatchObject({
      role: 'admin',
      view_policy: true,
      view_edit_policy: true,
      view_private_data: true,
      hidden: true,
      mfa_required: true,
      first_name: 'Kim',
      last_name: 'Ng',
    });
  });

  it('never lets an admin remove their own admin role or disable themself, nor the last active admin go', async () => {
    const { call, user: boss, tenant, domain } = await adminOfNewTenant();
    for (const body of [{ role: 'user' }, { disabled: true }]) {
      const res = await call('PATCH', userUrl(USERS_API.user, boss.id), body);
      expect(res.statusCode, JSON.stringify(body)).toBe(409);
    }
    const other = await buildUser(t.db, tenant.id, {
      email: `second@${domain}`,
      role: 'admin',
      status: 'disabled',
    });
    // A disabled admin does not count: the boss is still the last active one.
    expect((await call('PATCH', userUrl(USERS_API.user, other.id), { role: 'user' })).statusCode).toBe(200);
    const [stored] = await t.db.select().from(users).where(eq(users.id, boss.id));
    expect(stored).toMatchObject({ role: 'admin', status: 'active' });
  });

  it("resets a user's MFA: their sessions end, they are told by email, audited", async () => {
    const { call, tenant, domain } = await adminOfNewTenant();
    const kim = await buildUser(t.db, tenant.id, {
      email: `kim@${domain}`,
      mfaEnabled: true,
      mfaSecret: 'sealed',
      mfaRequired: true,
    });
    const { token } = await buildSession(t.db, kim);
    const res = await call('POST', userUrl(USERS_API.resetMfa, kim.id), {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ mfa_enabled: false, mfa_required: true });
    const again = await call('POST', userUrl(USERS_API.resetMfa, kim.id), {});
    expect(again.statusCode).toBe(409);
    const [mail] = await outboxTo(`kim@${domain}`);
    expect(mail).toMatchObject({ kind: 'mfa_reset' });
    expect(mail!.text).toContain('you will set it up again');
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/v1/current_user',
      cookies: { [SESSION_COOKIE]: token },
    });
    expect(me.statusCode).toBe(403);
  });
});

describe('User Management: who may do what', () => {
  it("lists the organisation's users only, with last sign-in, searchable and filterable", async () => {
    const { call, tenant, domain, user: boss } = await adminOfNewTenant();
    const kim = await buildUser(t.db, tenant.id, { email: `kim@${domain}`, firstName: 'Kim' });
    await buildSession(t.db, kim);
    const stranger = await adminOfNewTenant();
    const body = (await call('GET', `${USERS_API.users}?dir=asc`)).json();
    expect(body.total).toBe(2);
    expect(body.items.map((u: { email: string }) => u.email)).toEqual([`boss@${domain}`, `kim@${domain}`]);
    expect(body.items.find((u: { id: string }) => u.id === boss.id).is_you).toBe(true);
    expect(body.items[1].last_sign_in_at).not.toBeNull();
    expect((await call('GET', `${USERS_API.users}?q=kim`)).json().total).toBe(1);
    expect((await call('GET', `${USERS_API.users}?role=admin`)).json().total).toBe(1);
    expect(
      (await call('GET', `${USERS_API.users}?sort=last_sign_in_at&dir=desc`)).json().items[0].email,
    ).toBe(`kim@${domain}`);
    // Another organisation's user is not found, whatever the call.
    for (const [method, path, payload] of [
      ['PATCH', USERS_API.user, { role: 'admin' }],
      ['POST', USERS_API.resetMfa, {}],
      ['POST', USERS_API.resendInvite, {}],
    ] as const) {
      const res = await stranger.call(method, userUrl(path, kim.id), payload);
      expect(res.statusCode, path).toBe(404);
    }
  });

  it('answers a plain user 403 and anyone without a session 403, on every call (role × endpoint)', async () => {
    const { tenant, domain } = await adminOfNewTenant();
    const kim = await buildUser(t.db, tenant.id, { email: `kim@${domain}` });
    const plain = await signedInAs(t.app, t.db, { user: { role: 'user' } });
    const calls = [
      ['GET', USERS_API.users, undefined],
      ['POST', USERS_API.users, { email: `x@${domain}`, role: 'admin' }],
      ['PATCH', userUrl(USERS_API.user, kim.id), { role: 'admin' }],
      ['POST', userUrl(USERS_API.resendInvite, kim.id), {}],
      ['POST', userUrl(USERS_API.resetMfa, kim.id), {}],
    ] as const;
    for (const [method, url, payload] of calls) {
      const asUser = await t.app.inject({ method, url, cookies: plain.cookies, headers: CSRF, payload });
      expect(asUser.statusCode, `${method} ${url}`).toBe(403);
      expect(asUser.json().message).toBe('Insufficient privileges');
      const anonymous = await t.app.inject({ method, url, headers: CSRF, payload });
      expect(anonymous.statusCode, `${method} ${url}`).toBe(403);
    }
    const [unchanged] = await t.db.select().from(users).where(eq(users.id, kim.id));
    expect(unchanged!.role).toBe('user');
    expect(await outboxTo(`x@${domain}`)).toHaveLength(0);
  });
});

describe('User Management in a demo deployment (SPEC §6 "Admin (or demo customer)")', () => {
  it('lets its plain users read the list but change nothing', async () => {
    const demo = await signedInAs(t.app, t.db, {
      tenant: { deploymentMode: 'demo' },
      user: { role: 'user' },
    });
    const list = await demo.get(USERS_API.users);
    expect(list.statusCode).toBe(200);
    expect(list.json().items.map((u: { email: string }) => u.email)).toEqual([demo.user.email]);
    const change = await t.app.inject({
      method: 'PATCH',
      url: userUrl(USERS_API.user, demo.user.id),
      cookies: demo.cookies,
      headers: CSRF,
      payload: { role: 'admin' },
    });
    expect(change.statusCode).toBe(403);
  });
});
