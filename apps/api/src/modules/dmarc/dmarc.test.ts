import { gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API, rawReportPath } from '@moat/contracts/dmarc';
import { and, eq } from 'drizzle-orm';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, dmarcRecords, dmarcReports } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { GOOGLE_REPORT } from './test-reports.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Record<string, string>;
let user: Record<string, string>;
let tenantId: string;

beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  const a = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
  admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
  const u = await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
  user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
});
afterAll(async () => {
  await t.close();
});

const upload = (body: Buffer | Uint8Array, type = 'application/octet-stream', headers = admin) =>
  t.app.inject({
    method: 'POST',
    url: DMARC_API.reports,
    headers: { ...headers, 'content-type': type },
    payload: Buffer.from(body),
  });

describe('DMARC aggregate reports: upload and Reports Explorer', () => {
  it('takes a zipped report in once, audited; the same report again counts once', async () => {
    const file = zipSync({ 'google.com!acme.test!1764633600!1764719999.xml': Buffer.from(GOOGLE_REPORT) });
    const first = await upload(file, 'application/zip');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({
      duplicate: false,
      domain: 'acme.test',
      orgName: 'google.com',
      messages: 45,
      rows: 2,
    });
    // The same report, this time gzipped: nothing new.
    const again = await upload(gzipSync(GOOGLE_REPORT), 'application/gzip');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ duplicate: true, id: first.json().id });
    const rows = await t.db.select().from(dmarcRecords).where(eq(dmarcRecords.tenantId, tenantId));
    expect(rows).toHaveLength(2);
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'dmarc.report_added')));
    expect(audited).toHaveLength(1);
  });

  it('lists the sources with their results and totals, filtered, and gives the raw report back', async () => {
    const all = await t.app.inject({ method: 'GET', url: DMARC_API.records, headers: admin });
    expect(all.statusCode).toBe(200);
    expect(all.json()).toMatchObject({ total: 2, messages: 45, passed: 42 });
    expect(all.json().items[0]).toMatchObject({ orgName: 'google.com', domain: 'acme.test' });
    const failing = await t.app.inject({
      method: 'GET',
      url: DMARC_API.records,
      headers: admin,
      query: { dmarc: 'fail', sort: 'count', dir: 'desc' },
    });
    expect(failing.json().items).toEqual([
      expect.objectContaining({
        sourceIp: '2001:db8::7',
        count: 3,
        dmarc: 'fail',
        spfResults: [{ domain: 'mailer.example', result: 'softfail' }],
      }),
    ]);
    const byIp = await t.app.inject({
      method: 'GET',
      url: DMARC_API.records,
      headers: admin,
      query: { ip: '203.0.113.' },
    });
    expect(byIp.json().items.map((r: { sourceIp: string }) => r.sourceIp)).toEqual(['203.0.113.25']);

    const reports = await t.app.inject({ method: 'GET', url: DMARC_API.reports, headers: admin });
    const [report] = reports.json().items;
    const raw = await t.app.inject({ method: 'GET', url: rawReportPath(report.id), headers: admin });
    expect(raw.statusCode).toBe(200);
    expect(raw.headers['content-type']).toMatch(/^application\/xml/);
    expect(raw.body).toBe(GOOGLE_REPORT);
    const missing = await t.app.inject({
      method: 'GET',
      url: rawReportPath('00000000-0000-4000-8000-000000000000'),
      headers: admin,
    });
    expect(missing.statusCode).toBe(404);
  });

  it('refuses a broken report, another domain’s, an empty or oversized body, with the reason, and keeps nothing', async () => {
    const before = await t.db.select().from(dmarcRecords);
    const broken = await upload(Buffer.from('<feedback><report_metadata>'), 'text/xml');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().message).toMatch(/not a readable XML report/);
    const other = await upload(
      Buffer.from(
        GOOGLE_REPORT.replace('<domain>acme.test</domain><adkim>', '<domain>other.example</domain><adkim>'),
      ),
      'application/xml',
    );
    expect(other.statusCode).toBe(400);
    expect(other.json().message).toBe(
      'The report is about other.example, which is not one of your domains (acme.test)',
    );
    const dtd = await upload(
      Buffer.from('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><feedback>&a;</feedback>'),
      'application/xml',
    );
    expect(dtd.json().message).toMatch(/declares a DTD/);
    expect((await upload(Buffer.alloc(0))).statusCode).toBe(400);
    const huge = await upload(Buffer.alloc(11 * 1024 * 1024, 0x3c));
    expect(huge.statusCode).toBe(413);
    expect(await t.db.select().from(dmarcRecords)).toHaveLength(before.length);
  });

  it('sums a recent report per domain on the Overview, with the report address; exports the sources as CSV', async () => {
    // Yesterday's report (UTC) from another reporter: inside the Overview's 7 days.
    const day = Math.floor(Date.now() / 86_400_000) - 1;
    const recent = GOOGLE_REPORT.replace(
      '<org_name>google.com</org_name>',
      '<org_name>Yahoo</org_name>',
    ).replace(
      '<begin>1764633600</begin><end>1764719999</end>',
      `<begin>${day * 86_400}</begin><end>${day * 86_400 + 86_399}</end>`,
    );
    expect((await upload(Buffer.from(recent), 'application/xml')).statusCode).toBe(201);
    const overview = await t.app.inject({
      method: 'GET',
      url: DMARC_API.overview,
      headers: admin,
      query: { days: '7' },
    });
    expect(overview.statusCode).toBe(200);
    const [acme] = overview.json().domains;
    expect(acme).toMatchObject({
      domain: 'acme.test',
      reportAddress: 'dmarc-reports@acme.test',
      reports: 1,
      messages: 45,
      passed: 42,
      reportedPolicy: 'none',
      topFailing: [{ sourceIp: '2001:db8::7', messages: 3, reports: 1 }],
    });
    expect(acme.trend).toHaveLength(7);
    expect(acme.trend[5]).toEqual({
      day: new Date(day * 86_400_000).toISOString().slice(0, 10),
      messages: 45,
      passed: 42,
    });
    const bad = await t.app.inject({
      method: 'GET',
      url: DMARC_API.overview,
      headers: admin,
      query: { days: '12' },
    });
    expect(bad.statusCode).toBe(400);

    const csv = await t.app.inject({
      method: 'GET',
      url: DMARC_API.recordsCsv,
      headers: admin,
      query: { dmarc: 'fail' },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    expect(lines[0]).toMatch(/^begin,end,reporter,domain,source_ip,count/);
    expect(lines).toHaveLength(3);
    expect(lines.every((l, i) => i === 0 || l.includes('"2001:db8::7"'))).toBe(true);
  });

  it("lets no forged report under a real reporter's id make the real one a duplicate; a report of before still counts once", async () => {
    const real = GOOGLE_REPORT.replace(
      '<report_id>4312398455187346520</report_id>',
      '<report_id>guessable-1</report_id>',
    );
    const forged = real.replace('<count>42</count>', '<count>1</count>');
    expect((await upload(Buffer.from(forged), 'application/xml')).statusCode).toBe(201);
    const first = await upload(Buffer.from(real), 'application/xml');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toMatchObject({ duplicate: false, messages: 45 });
    const again = await upload(gzipSync(real), 'application/gzip');
    expect(again.json()).toMatchObject({ duplicate: true, id: first.json().id });

    // A report taken in before contents were hashed (migration 0042) matches its id whatever it holds.
    const old = GOOGLE_REPORT.replace(
      '<report_id>4312398455187346520</report_id>',
      '<report_id>before-1</report_id>',
    );
    expect((await upload(Buffer.from(old), 'application/xml')).statusCode).toBe(201);
    await t.db
      .update(dmarcReports)
      .set({ contentHash: '' })
      .where(and(eq(dmarcReports.tenantId, tenantId), eq(dmarcReports.reportId, 'before-1')));
    const resent = await upload(Buffer.from(old.replace('</feedback>', '\n</feedback>')), 'application/xml');
    expect(resent.json()).toMatchObject({ duplicate: true });
  });

  it('is for admins only', async () => {
    expect((await upload(Buffer.from(GOOGLE_REPORT), 'application/xml', user)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: DMARC_API.records, headers: user })).statusCode).toBe(
      403,
    );
  });
});
