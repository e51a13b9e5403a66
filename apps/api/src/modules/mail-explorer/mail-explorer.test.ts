import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildMailLogEntry, buildTenant, buildUser } from '../../test/factories.ts';
import { Jar, login } from '../../test/sign-in.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Jar;
let plainUser: Jar;
const password = 'admin password 1';
const day = (d: number, h = 12) => new Date(Date.UTC(2026, 10, d, h));

beforeAll(async () => {
  t = await buildTestApp({ env: { CAPTCHA_DIFFICULTY: '10' } });
  const tenant = await buildTenant(t.db);
  const other = await buildTenant(t.db);
  const hash = await hashPassword(password);
  await buildUser(t.db, tenant.id, { email: `admin@${tenant.domain}`, role: 'admin', passwordHash: hash });
  await buildUser(t.db, tenant.id, { email: `user@${tenant.domain}`, role: 'user', passwordHash: hash });
  admin = new Jar();
  plainUser = new Jar();
  await login(t.app, admin, `admin@${tenant.domain}`, password);
  await login(t.app, plainUser, `user@${tenant.domain}`, password);
  await buildMailLogEntry(t.db, tenant.id, { subject: 'Banana', receivedAt: day(1), size: 300 });
  await buildMailLogEntry(t.db, tenant.id, {
    subject: '=HYPERLINK("http://evil.example")',
    receivedAt: day(2),
    size: 100,
    messageIdHeader: '<m2@shop.example>',
    verdict: 'phishing',
    action: 'quarantined',
    reasons: ['Lookalike domain', 'Credential form'],
  });
  await buildMailLogEntry(t.db, tenant.id, { subject: 'apple', receivedAt: day(3), size: 200 });
  await buildMailLogEntry(t.db, other.id, { subject: 'Other tenant', receivedAt: day(2) });
});
afterAll(() => t.close());

const get = (jar: Jar, url: string) => t.app.inject({ method: 'GET', url, cookies: jar.cookies });
const subjects = (body: string) =>
  (JSON.parse(body) as { items: Array<{ subject: string }> }).items.map((i) => i.subject);

describe('GET /api/v1/mail_explorer', () => {
  it('sorts by the chosen column either way, newest first by default', async () => {
    expect(subjects((await get(admin, '/api/v1/mail_explorer')).body)).toEqual([
      'apple',
      '=HYPERLINK("http://evil.example")',
      'Banana',
    ]);
    expect(subjects((await get(admin, '/api/v1/mail_explorer?sort=subject&dir=asc')).body)).toEqual([
      '=HYPERLINK("http://evil.example")',
      'apple',
      'Banana',
    ]);
    expect(subjects((await get(admin, '/api/v1/mail_explorer?sort=size&dir=desc')).body)).toEqual([
      'Banana',
      'apple',
      '=HYPERLINK("http://evil.example")',
    ]);
  });

  it('keeps to the time range, from included and to excluded', async () => {
    const from = encodeURIComponent(day(2, 0).toISOString());
    const to = encodeURIComponent(day(3, 0).toISOString());
    const res = await get(admin, `/api/v1/mail_explorer?from=${from}&to=${to}`);
    expect(res.statusCode).toBe(200);
    expect(subjects(res.body)).toEqual(['=HYPERLINK("http://evil.example")']);
    expect(JSON.parse(res.body).total).toBe(1);
  });

  it('finds a message by its Message-ID, with or without the angle brackets', async () => {
    for (const id of ['<m2@shop.example>', 'm2@shop.example']) {
      const res = await get(admin, `/api/v1/mail_explorer?message_id=${encodeURIComponent(id)}`);
      expect(JSON.parse(res.body).items.map((i: { message_id: string }) => i.message_id)).toEqual([
        '<m2@shop.example>',
      ]);
    }
  });

  it('answers 400 for a range that ends before it starts, an unknown sort or a bad date', async () => {
    const from = encodeURIComponent(day(3).toISOString());
    const to = encodeURIComponent(day(2).toISOString());
    for (const query of [`from=${from}&to=${to}`, 'sort=password', 'from=yesterday', 'dir=up']) {
      const res = await get(admin, `/api/v1/mail_explorer?${query}`);
      expect(res.statusCode, query).toBe(400);
    }
  });
});

describe('GET /api/v1/mail_explorer/export', () => {
  it('downloads the filtered list as CSV with inert formulas, for admins only', async () => {
    const res = await get(admin, '/api/v1/mail_explorer/export?verdict=phishing&limit=1');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="mail-explorer-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = res.body
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe(
      'received_at,sender,sender_name,recipient,subject,message_id,verdict,action,delivery,reasons,spf,dkim,dmarc,size,attachments',
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.example"")"`);
    expect(lines[1]).toContain('Lookalike domain; Credential form');
    expect(lines[1]).not.toContain('Other tenant');

    expect((await get(plainUser, '/api/v1/mail_explorer/export')).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/api/v1/mail_explorer/export' })).statusCode).toBe(403);
  });
});
