import { VIP_EMAILS_MAX, VIPS_MAX } from '@moat/contracts/vips';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, vips } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let tenant: Awaited<ReturnType<typeof buildTenant>>;
let other: Awaited<ReturnType<typeof buildTenant>>;
let admin: Jar;
let plainUser: Jar;
let otherAdmin: Jar;
const password = 'admin password 1';
const URL_ = '/api/v1/vips';

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
  tenant = await buildTenant(t.db);
  other = await buildTenant(t.db);
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: `admin@${tenant.domain}`, role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, { email: `user@${tenant.domain}`, role: 'user', passwordHash: hash });
  await buildUser(t.db, other.id, { email: `admin@${other.domain}`, role: 'admin', passwordHash: hash });
  admin = new Jar();
  plainUser = new Jar();
  otherAdmin = new Jar();
  await login(t.app, admin, `admin@${tenant.domain}`, password);
  await login(t.app, plainUser, `user@${tenant.domain}`, password);
  await login(t.app, otherAdmin, `admin@${other.domain}`, password);
});
afterAll(() => t.close());

const list = async (jar: Jar) => {
  const res = await t.app.inject({ method: 'GET', url: URL_, cookies: jar.cookies });
  return {
    status: res.statusCode,
    body: res.json() as {
      items: Array<{ id: string; name: string; emails: string[] }>;
      total: number;
      max: number;
    },
  };
};
const add = (jar: Jar, body: unknown) => postJson(t.app, jar, URL_, body);
const put = (jar: Jar, id: string, body: unknown) => postJson(t.app, jar, `${URL_}/${id}`, body, 'PUT');
const del = (jar: Jar, id: string) => postJson(t.app, jar, `${URL_}/${id}`, undefined, 'DELETE');
const auditOf = (action: string) =>
  t.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.action, action as never), eq(auditLog.tenantId, tenant.id)));

describe('the VIP list (Anti-Phishing: protected people)', () => {
  it('adds a VIP with its name tidied and addresses normalised, lists it and audits it', async () => {
    const res = await add(admin, {
      name: '  Jane   Doe ',
      emails: [' Jane.Doe@Acme.Example ', 'jane@münich.example', 'JANE.DOE@acme.example', ''],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Jane Doe',
      emails: ['jane.doe@acme.example', 'jane@xn--mnich-kva.example'],
      created_by: `admin@${tenant.domain}`,
    });
    const { body } = await list(admin);
    expect(body).toMatchObject({ total: 1, max: VIPS_MAX });
    expect(body.items.map((v) => v.name)).toEqual(['Jane Doe']);
    const [entry] = await auditOf('vip.create');
    expect(entry).toMatchObject({
      targetType: 'vip',
      targetId: res.json().id,
      actorEmail: `admin@${tenant.domain}`,
    });
  });

  it('edits a VIP (name and addresses replaced) and audits before and after', async () => {
    const created = (await add(admin, { name: 'Carl Finance', emails: ['carl@acme.example'] })).json();
    const res = await put(admin, created.id, {
      name: 'Carl Fin',
      emails: ['c@acme.example', 'carl@acme.example'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: created.id,
      name: 'Carl Fin',
      emails: ['c@acme.example', 'carl@acme.example'],
    });
    const [entry] = await auditOf('vip.update');
    expect(entry?.details).toMatchObject({
      before: { name: 'Carl Finance' },
      after: { name: 'Carl Fin', emails: ['c@acme.example', 'carl@acme.example'] },
    });
    // A name alone (no addresses) is allowed: every sender using it is suspect.
    expect((await put(admin, created.id, { name: 'Carl Fin', emails: [] })).json().emails).toEqual([]);
  });

  it('answers 400 naming every bad field, and stores nothing', async () => {
    const cases: Array<[unknown, string[]]> = [
      [{ name: 'Jo', emails: [] }, ['body.name']],
      [{ name: 'x'.repeat(101), emails: [] }, ['body.name']],
      [{ name: '1234', emails: [] }, ['body.name']],
      [
        { name: 'Ann Lee', emails: ['not an address', 'ok@acme.example', 'also@'] },
        ['body.emails.0', 'body.emails.2'],
      ],
      [
        {
          name: 'Ann Lee',
          emails: Array.from({ length: VIP_EMAILS_MAX + 1 }, (_, i) => `a${i}@acme.example`),
        },
        ['body.emails'],
      ],
    ];
    const before = (await list(admin)).body.total;
    for (const [body, fields] of cases) {
      const res = await add(admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('bad_request');
      expect((res.json().details as Array<{ field: string }>).map((d) => d.field)).toEqual(fields);
    }
    // Unknown fields and wrong types are refused by the schema.
    expect((await add(admin, { name: 'Ann Lee', emails: 'a@b.example' })).statusCode).toBe(400);
    expect((await add(admin, { name: 'Ann Lee', role: 'ceo' })).statusCode).toBe(400);
    expect((await list(admin)).body.total).toBe(before);
  });

  it('answers 409 for a name on the list already, whatever its case, on add and on edit', async () => {
    await add(admin, { name: 'Mia Wong', emails: [] });
    const again = await add(admin, { name: 'MIA  wong', emails: ['mia@acme.example'] });
    expect(again.statusCode).toBe(409);
    expect(again.json().message).toMatch(/on the list already/);
    const bob = (await add(admin, { name: 'Bob Stone', emails: [] })).json();
    expect((await put(admin, bob.id, { name: 'mia wong', emails: [] })).statusCode).toBe(409);
    // Its own name, differently written, is no clash.
    expect((await put(admin, bob.id, { name: 'BOB STONE', emails: [] })).statusCode).toBe(200);
  });

  it('deletes a VIP and audits it; a second delete is 404', async () => {
    const created = (await add(admin, { name: 'Temp Person', emails: [] })).json();
    const res = await del(admin, created.id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: true });
    expect((await list(admin)).body.items.some((v) => v.id === created.id)).toBe(false);
    expect((await auditOf('vip.delete')).some((e) => e.targetId === created.id)).toBe(true);
    expect((await del(admin, created.id)).statusCode).toBe(404);
  });

  it("keeps tenants apart: another tenant's admin neither sees nor changes them", async () => {
    const mine = (await add(admin, { name: 'Secret Ceo', emails: ['ceo@acme.example'] })).json();
    const theirs = await list(otherAdmin);
    expect(theirs.status).toBe(200);
    expect(theirs.body.items).toEqual([]);
    expect((await put(otherAdmin, mine.id, { name: 'Hijacked', emails: [] })).statusCode).toBe(404);
    expect((await del(otherAdmin, mine.id)).statusCode).toBe(404);
    const [row] = await t.db.select().from(vips).where(eq(vips.id, mine.id));
    expect(row?.name).toBe('Secret Ceo');
    // The same name may be a VIP of another tenant.
    expect((await add(otherAdmin, { name: 'Secret Ceo', emails: [] })).statusCode).toBe(200);
  });

  it('refuses a user who is not an admin, for reading and for writing', async () => {
    expect((await list(plainUser)).status).toBe(403);
    expect((await add(plainUser, { name: 'Some One', emails: [] })).statusCode).toBe(403);
    const [any] = (await list(admin)).body.items;
    expect((await put(plainUser, any?.id ?? '', { name: 'Some One', emails: [] })).statusCode).toBe(403);
    expect((await del(plainUser, any?.id ?? '')).statusCode).toBe(403);
  });

  it(`answers 409 past ${VIPS_MAX} VIPs and adds nothing`, async () => {
    const have = (await list(otherAdmin)).body.total;
    await t.db
      .insert(vips)
      .values(
        Array.from({ length: VIPS_MAX - have }, (_, i) => ({ tenantId: other.id, name: `Person ${i}` })),
      );
    const res = await add(otherAdmin, { name: 'One Too Many', emails: [] });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toMatch(/At most 500/);
    expect((await list(otherAdmin)).body.total).toBe(VIPS_MAX);
  });
});
