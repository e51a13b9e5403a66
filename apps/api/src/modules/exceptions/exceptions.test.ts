import { EXCEPTION_IP_RANGES_MAX } from '@moat/contracts/exceptions';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, senderLists } from '../../db/schema.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let tenant: Awaited<ReturnType<typeof buildTenant>>;
let admin: Jar;
let plainUser: Jar;
let otherAdmin: Jar;
/** Time moved by the tests (sessions and captchas live in real time). */
let offset = 0;
const password = 'admin password 1';
const URL_ = '/api/v1/exceptions';

beforeAll(async () => {
  t = await buildTestApp({
    env: { CAPTCHA_DIFFICULTY: '10' },
    clock: { now: () => new Date(Date.now() + offset) },
  });
  tenant = await buildTenant(t.db);
  const other = await buildTenant(t.db);
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

const get = (jar: Jar, url: string) => t.app.inject({ method: 'GET', url, cookies: jar.cookies });
const items = (body: string) =>
  (JSON.parse(body) as { items: Array<Record<string, unknown>> }).items as Array<{
    id: string;
    value: string;
    kind: string;
    expired: boolean;
    created_by: string;
    comment: string;
  }>;

describe('POST /api/v1/exceptions', () => {
  it('normalises each kind and records who added it and when it expires', async () => {
    const cases: Array<[string, string, string]> = [
      ['sender', ' Boss@Münich.Example ', 'boss@xn--mnich-kva.example'],
      ['domain', 'EXAMPLE.org.', 'example.org'],
      ['ip_range', '192.0.2.7/24', '192.0.2.7/24'],
      ['ip_range', '2001:DB8:0:0::1', '2001:db8::1/128'],
      ['url', 'HTTPS://Evil.Example/login#top', 'https://evil.example/login'],
      ['sha256', 'A'.repeat(64), 'a'.repeat(64)],
    ];
    for (const [kind, value, stored] of cases) {
      const res = await postJson(t.app, admin, URL_, {
        list: 'block',
        kind,
        value,
        scope: 'anti_malware',
        comment: 'from the incident',
        expires_at: '2030-12-01T00:00:00Z',
      });
      expect(res.statusCode, `${kind} ${value}`).toBe(200);
      expect(res.json()).toMatchObject({
        value: stored,
        kind,
        created_by: `admin@${tenant.domain}`,
        expires_at: '2030-12-01T00:00:00.000Z',
        expired: false,
      });
    }
    const [audit] = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'exception.create'), eq(auditLog.tenantId, tenant.id)));
    expect(audit?.actorEmail).toBe(`admin@${tenant.domain}`);
  });

  it('answers 400 with the field and adds nothing for a bad value, a past expiry or a long comment', async () => {
    const bad = [
      { list: 'block', kind: 'sender', value: 'not an address' },
      { list: 'block', kind: 'ip_range', value: '300.1.1.1/8' },
      { list: 'block', kind: 'ip_range', value: '10.0.0.0/33' },
      { list: 'block', kind: 'url', value: 'javascript:alert(1)' },
      // Short as typed (918 characters), 5,418 once percent-encoded: the stored form counts.
      { list: 'block', kind: 'url', value: `https://x.example/${'é'.repeat(900)}` },
      { list: 'block', kind: 'sha256', value: 'abc' },
      { list: 'block', kind: 'domain', value: 'past.example', expires_at: '2020-11-19T00:00:00Z' },
      { list: 'block', kind: 'domain', value: 'long.example', comment: 'x'.repeat(501) },
      // An allowed link, file or IP range would excuse whatever an attacker puts beside it.
      { list: 'allow', kind: 'url', value: 'https://sharepoint.example/' },
      { list: 'allow', kind: 'sha256', value: 'a'.repeat(64) },
      { list: 'allow', kind: 'ip_range', value: '40.92.0.0/15' },
      // The organisation's own domain is never blocked (a spoofed From would block the real colleague).
      { list: 'block', kind: 'domain', value: tenant.domain },
      { list: 'block', kind: 'sender', value: `ceo@${tenant.domain}` },
    ];
    const before = (await t.db.select().from(senderLists)).length;
    for (const body of bad) {
      const res = await postJson(t.app, admin, URL_, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await t.db.select().from(senderLists)).length).toBe(before);
  });

  it('answers 409 for a value already on that list', async () => {
    await postJson(t.app, admin, URL_, { list: 'allow', kind: 'domain', value: 'twice.example' });
    const res = await postJson(t.app, admin, URL_, {
      list: 'allow',
      kind: 'domain',
      value: 'TWICE.example',
      scope: 'anti_spam',
    });
    expect(res.statusCode).toBe(409);
  });
});

describe('the cap on IP ranges', () => {
  it(`refuses the range past ${EXCEPTION_IP_RANGES_MAX} with 409, typed or imported (all or nothing)`, async () => {
    const tenant2 = await buildTenant(t.db);
    await buildUser(t.db, tenant2.id, {
      email: `admin@${tenant2.domain}`,
      role: 'admin',
      passwordHash: await hashPassword(password),
    });
    const jar = new Jar();
    await login(t.app, jar, `admin@${tenant2.domain}`, password);
    // One short of the cap, written straight to the table.
    await t.db.insert(senderLists).values(
      Array.from({ length: EXCEPTION_IP_RANGES_MAX - 1 }, (_, i) => ({
        tenantId: tenant2.id,
        list: 'block' as const,
        kind: 'ip_range' as const,
        scope: 'all' as const,
        value: `10.${Math.floor(i / 256)}.${i % 256}.0/24`,
      })),
    );
    const two = [
      'list,kind,scope,value',
      'block,ip_range,all,192.0.2.0/24',
      'block,ip_range,all,198.51.100.0/24',
    ];
    const refused = await postJson(t.app, jar, `${URL_}/import`, { csv: two.join('\n') });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toContain(
      `At most ${EXCEPTION_IP_RANGES_MAX.toLocaleString('en')} IP ranges`,
    );
    const count = async () =>
      (await t.db.select().from(senderLists).where(eq(senderLists.tenantId, tenant2.id))).length;
    expect(await count()).toBe(EXCEPTION_IP_RANGES_MAX - 1);
    // The last one fits; the next does not. Other kinds are not counted.
    const add = (value: string, kind = 'ip_range') =>
      postJson(t.app, jar, URL_, { list: 'block', kind, value });
    expect((await add('192.0.2.0/24')).statusCode).toBe(200);
    expect((await add('198.51.100.0/24')).statusCode).toBe(409);
    expect((await add('spam.example', 'domain')).statusCode).toBe(200);
    expect(await count()).toBe(EXCEPTION_IP_RANGES_MAX + 1);
  });
});

describe('GET /api/v1/exceptions', () => {
  it('leaves expired entries out unless asked, and marks them expired', async () => {
    await postJson(t.app, admin, URL_, {
      list: 'block',
      kind: 'sender',
      value: 'soon@gone.example',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
    const live = items((await get(admin, `${URL_}?q=gone.example`)).body);
    expect(live.map((e) => e.value)).toEqual(['soon@gone.example']);
    offset = 120_000;
    try {
      expect(items((await get(admin, `${URL_}?q=gone.example`)).body)).toEqual([]);
      const all = items((await get(admin, `${URL_}?q=gone.example&include_expired=true`)).body);
      expect(all).toMatchObject([{ value: 'soon@gone.example', expired: true }]);
    } finally {
      offset = 0;
    }
  });

  it('filters by list, kind and page (a page shows its own entries and those for every engine)', async () => {
    const shas = items((await get(admin, `${URL_}?kind=sha256&list=block`)).body);
    expect(shas.map((e) => e.value)).toEqual(['a'.repeat(64)]);
    const spam = items((await get(admin, `${URL_}?scope=anti_spam&limit=200`)).body);
    expect(spam.some((e) => e.value === 'twice.example')).toBe(true);
    expect(spam.some((e) => e.kind === 'sha256')).toBe(false);
  });

  it('answers 403 to a plain user and shows another tenant nothing', async () => {
    expect((await get(plainUser, URL_)).statusCode).toBe(403);
    expect(
      (await postJson(t.app, plainUser, URL_, { list: 'block', kind: 'domain', value: 'x.example' }))
        .statusCode,
    ).toBe(403);
    expect(items((await get(otherAdmin, URL_)).body)).toEqual([]);
  });
});

describe('DELETE /api/v1/exceptions/:id', () => {
  it("deletes the tenant's entry, audited; another tenant's admin gets 404 and nothing changes", async () => {
    const created = (
      await postJson(t.app, admin, URL_, { list: 'block', kind: 'domain', value: 'delete-me.example' })
    ).json() as { id: string };
    const foreign = await postJson(t.app, otherAdmin, `${URL_}/${created.id}`, undefined, 'DELETE');
    expect(foreign.statusCode).toBe(404);
    expect(items((await get(admin, `${URL_}?q=delete-me`)).body)).toHaveLength(1);
    const res = await postJson(t.app, admin, `${URL_}/${created.id}`, undefined, 'DELETE');
    expect(res.statusCode).toBe(200);
    expect(items((await get(admin, `${URL_}?q=delete-me`)).body)).toEqual([]);
    const audits = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'exception.delete'), eq(auditLog.targetId, created.id)));
    expect(audits).toHaveLength(1);
  });
});

describe('CSV export and import', () => {
  it('exports the list as CSV that imports back', async () => {
    const res = await get(admin, `${URL_}/export?kind=url`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe('list,kind,scope,value,comment,expires_at,created_by,created_at');
    expect(lines[1]).toContain('https://evil.example/login');
  });

  it('imports nothing and reports every bad line when one row is bad', async () => {
    const csv = [
      'list,kind,scope,value,comment,expires_at',
      'block,domain,anti_spam,good-one.example,"a, quoted comment",',
      'block,ip_range,all,999.0.0.0/8,,',
      'maybe,domain,all,x.example,,',
      `block,url,all,https://x.example/${'é'.repeat(900)},,`,
    ].join('\n');
    const res = await postJson(t.app, admin, `${URL_}/import`, { csv });
    expect(res.statusCode).toBe(400);
    const details = (res.json() as { details: Array<{ field: string }> }).details.map((d) => d.field);
    expect(details).toEqual(['line 3', 'line 4', 'line 5']);
    expect(items((await get(admin, `${URL_}?q=good-one`)).body)).toEqual([]);
  });

  it('imports every row of a good file, audited', async () => {
    const csv = [
      'list,kind,scope,value,comment,expires_at',
      'block,domain,anti_spam,good-one.example,"a, quoted comment",',
      'allow,sender,all,partner@trusted.example,,2031-01-01T00:00:00Z',
    ].join('\r\n');
    const res = await postJson(t.app, admin, `${URL_}/import`, { csv });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ imported: 2 });
    expect(items((await get(admin, `${URL_}?q=good-one`)).body)).toMatchObject([
      { comment: 'a, quoted comment', kind: 'domain' },
    ]);
    const audits = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'exception.import'), eq(auditLog.tenantId, tenant.id)));
    expect(audits).toHaveLength(1);
  });
});

describe('sender_lists written without the new columns (other writers)', () => {
  it('files a plain domain insert as a domain and an address as a sender', async () => {
    await t.db.insert(senderLists).values([
      { tenantId: tenant.id, list: 'block', value: 'plain.example' },
      { tenantId: tenant.id, list: 'block', value: 'who@plain.example' },
    ]);
    const listed = items((await get(admin, `${URL_}?q=plain.example&sort=value&dir=asc`)).body);
    expect(listed.map((e) => [e.value, e.kind])).toEqual([
      ['plain.example', 'domain'],
      ['who@plain.example', 'sender'],
    ]);
  });
});

describe('pages of engines this edition lacks (Anomaly)', () => {
  it('takes no new entry for them, typed or imported, and keeps the ones stored before: listed, still counted, deletable', async () => {
    for (const scope of ['anomaly']) {
      const res = await postJson(t.app, admin, URL_, {
        list: 'allow',
        kind: 'domain',
        scope,
        value: `${scope}.example`,
      });
      expect(res.statusCode, scope).toBe(400);
      const csv = `list,kind,scope,value,comment,expires_at\nallow,domain,${scope},${scope}-csv.example,,`;
      expect((await postJson(t.app, admin, `${URL_}/import`, { csv })).statusCode, scope).toBe(400);
      expect((await get(admin, `${URL_}?scope=${scope}`)).statusCode, scope).toBe(400);
    }
    // An entry filed under Anomaly before the page went: as it was, on the Exceptions page.
    await t.db.insert(senderLists).values({
      tenantId: tenant.id,
      list: 'allow',
      kind: 'domain',
      value: 'legacy-anomaly.example',
      scope: 'anomaly',
    });
    const listed = JSON.parse((await get(admin, `${URL_}?q=legacy-anomaly`)).body).items;
    expect(listed).toMatchObject([{ value: 'legacy-anomaly.example', scope: 'anomaly' }]);
    const del = await postJson(t.app, admin, `${URL_}/${listed[0].id}`, undefined, 'DELETE');
    expect(del.statusCode).toBe(200);
    expect(JSON.parse((await get(admin, `${URL_}?q=legacy-anomaly`)).body).items).toEqual([]);
  });
});

describe('Click-Time (issue 36)', () => {
  it('takes domains and URLs, allowed or blocked, and nothing else', async () => {
    for (const [list, kind, value] of [
      ['allow', 'domain', 'wiki.intranet.example'],
      ['allow', 'url', 'https://sharepoint.example/sites/'],
      ['block', 'domain', 'evil-click.example'],
    ] as const) {
      const res = await postJson(t.app, admin, URL_, { list, kind, scope: 'click_time', value });
      expect(res.statusCode, value).toBe(200);
    }
    for (const [kind, value] of [
      ['sender', 'a@click.example'],
      ['sha256', 'a'.repeat(64)],
    ] as const) {
      const res = await postJson(t.app, admin, URL_, { list: 'block', kind, scope: 'click_time', value });
      expect(res.statusCode, kind).toBe(400);
      expect(res.body).toContain('a Click-Time entry is a domain (a site) or a URL');
    }
  });
});
