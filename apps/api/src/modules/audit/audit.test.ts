import { AUDIT_API } from '@moat/contracts/audit';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { signedInAs } from '../../test/console.ts';
import { buildSession, buildUser } from '../../test/factories.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function seed(tenantId: string) {
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 20, 10, minutes));
  await t.db.insert(auditLog).values([
    {
      tenantId,
      actorType: 'user',
      actorEmail: 'ana@acme.test',
      ip: '198.51.100.7',
      action: 'user.invite',
      targetType: 'user',
      targetId: 'kim@acme.test',
      details: { role: 'user' },
      createdAt: at(1),
    },
    {
      tenantId,
      actorType: 'cli',
      action: 'tenant.apps_update',
      targetType: 'tenant',
      targetId: tenantId,
      details: { smtp_emails: 'enabled' },
      createdAt: at(2),
    },
    {
      tenantId,
      actorType: 'user',
      actorEmail: 'bo@acme.test',
      ip: '203.0.113.9',
      action: 'quarantine.release',
      targetType: 'message',
      targetId: 'm-1',
      details: { subject: '=HYPERLINK("http://x")' },
      createdAt: at(3),
    },
  ]);
}

describe('GET /api/v1/audit_log (System Logs)', () => {
  it("lists only the admin's tenant's entries, newest first, with actor, action, target, IP and date", async () => {
    const admin = await signedInAs(t.app, t.db);
    const other = await signedInAs(t.app, t.db);
    await seed(admin.tenant.id);
    await seed(other.tenant.id);
    const res = await admin.get(AUDIT_API.entries);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.total).toBe(3);
    expect(body.items.map((e: { action: string }) => e.action)).toEqual([
      'quarantine.release',
      'tenant.apps_update',
      'user.invite',
    ]);
    expect(body.items[2]).toMatchObject({
      actor_type: 'user',
      actor: 'ana@acme.test',
      target_type: 'user',
      target_id: 'kim@acme.test',
      ip: '198.51.100.7',
      created_at: '2026-11-20T10:01:00.000Z',
      details: { role: 'user' },
    });
    expect(body.items[1]).toMatchObject({ actor: 'cli', actor_type: 'cli' });
  });

  it('filters by actor, actor kind, action (or its start), target and date, and pages', async () => {
    const admin = await signedInAs(t.app, t.db);
    await seed(admin.tenant.id);
    const actions = async (query: string) =>
      (await admin.get(`${AUDIT_API.entries}?${query}`))
        .json()
        .items.map((e: { action: string }) => e.action);
    expect(await actions('actor=bo@')).toEqual(['quarantine.release']);
    expect(await actions('actor_type=cli')).toEqual(['tenant.apps_update']);
    expect(await actions('action=user.')).toEqual(['user.invite']);
    expect(await actions('target=m-1')).toEqual(['quarantine.release']);
    expect(await actions('q=198.51.100')).toEqual(['user.invite']);
    expect(
      await actions(
        `from=${encodeURIComponent('2026-11-20T10:02:00Z')}&to=${encodeURIComponent('2026-11-20T10:03:00Z')}`,
      ),
    ).toEqual(['tenant.apps_update']);
    expect(await actions('sort=action&dir=asc&limit=1&offset=1')).toEqual(['tenant.apps_update']);
    // A wildcard is a character to look for, not a pattern.
    expect(await actions('action=%25')).toEqual([]);
  });

  it('exports the filtered entries as CSV, what changed as JSON in one cell', async () => {
    const admin = await signedInAs(t.app, t.db);
    await seed(admin.tenant.id);
    const res = await admin.get(`${AUDIT_API.export}?action=quarantine`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(
      /attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('created_at,actor_type,actor,action,target_type,target_id,ip,details');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"bo@acme.test","quarantine.release","message","m-1","203.0.113.9"');
    expect(
      lines[1]!.endsWith(`,"${JSON.stringify({ subject: '=HYPERLINK("http://x")' }).replace(/"/g, '""')}"`),
    ).toBe(true);
  });

  it("shows a plain user only their own actions, nobody's without a session, and a bad query 400", async () => {
    const admin = await signedInAs(t.app, t.db);
    await seed(admin.tenant.id);
    const kim = await buildUser(t.db, admin.tenant.id, { email: 'kim@acme.test', role: 'user' });
    await t.db.insert(auditLog).values({
      tenantId: admin.tenant.id,
      actorType: 'user',
      actorUserId: kim.id,
      actorEmail: kim.email,
      action: 'user.password_change',
      targetType: 'user',
      targetId: kim.id,
    });
    const { token } = await buildSession(t.db, kim);
    const cookies = { [SESSION_COOKIE]: token };
    for (const url of [AUDIT_API.entries, AUDIT_API.export]) {
      const res = await t.app.inject({ method: 'GET', url, cookies });
      expect(res.statusCode, url).toBe(200);
      expect(res.body, url).toContain('user.password_change');
      expect(res.body, url).not.toContain('user.invite');
      expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(403);
    }
    expect((await admin.get(AUDIT_API.entries)).json().total).toBe(4);
    for (const query of [
      'sort=ip',
      'limit=0',
      'actor_type=robot',
      'from=yesterday',
      `q=${'x'.repeat(201)}`,
      'q=%00',
    ]) {
      expect((await admin.get(`${AUDIT_API.entries}?${query}`)).statusCode, query).toBe(400);
    }
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await t.app.inject({ method, url: AUDIT_API.entries, cookies: admin.cookies });
      expect([403, 404], method).toContain(res.statusCode);
    }
  });
});
