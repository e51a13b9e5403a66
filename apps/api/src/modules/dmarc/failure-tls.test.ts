import { gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API } from '@moat/contracts/dmarc';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLog, dmarcFailureReports, dmarcIntake, dmarcTlsReports } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import {
  ARF_QUIRKY,
  ARF_REPORT,
  TLS_GOOGLE_REPORT,
  TLS_MICROSOFT_REPORT,
  TLS_RFC_REPORT,
} from './failure-tls-samples.ts';

/* Failure and TLS reports uploaded, listed and counted once (issue 37), on PGlite or PostgreSQL. */

let t: Awaited<ReturnType<typeof buildTestApp>>;
let admin: Record<string, string>;
let user: Record<string, string>;
let otherAdmin: Record<string, string>;
let tenantId: string;

beforeAll(async () => {
  t = await buildTestApp();
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  const a = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
  admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
  const u = await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
  user = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, u)).token}`, ...CSRF };
  const other = await buildTenant(t.db, { domain: 'other.example' });
  const o = await buildUser(t.db, other.id, { email: 'admin@other.example', role: 'admin' });
  otherAdmin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, o)).token}`, ...CSRF };
});
afterAll(async () => {
  await t.close();
});

const upload = (body: Buffer | string, type = 'application/octet-stream', headers = admin) =>
  t.app.inject({
    method: 'POST',
    url: DMARC_API.reports,
    headers: { ...headers, 'content-type': type },
    payload: Buffer.from(body),
  });
const get = (url: string, query: Record<string, string> = {}, headers = admin) =>
  t.app.inject({ method: 'GET', url, headers, query });

describe('failure reports: upload and list', () => {
  it('takes an ARF message in once, redacted, audited; the same report again counts once', async () => {
    const first = await upload(ARF_REPORT, 'message/rfc822');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({
      kind: 'failure',
      duplicate: false,
      domain: 'acme.test',
      orgName: 'mail.example.net',
    });
    // The same report from the console (bytes), resent with a new Message-ID of its own.
    const again = await upload(ARF_REPORT.replace('<433689.81121', '<777.1'));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ kind: 'failure', duplicate: true, id: first.json().id });
    expect(
      await t.db.select().from(dmarcFailureReports).where(eq(dmarcFailureReports.tenantId, tenantId)),
    ).toHaveLength(1);
    const audited = await t.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.tenantId, tenantId), eq(auditLog.action, 'dmarc.failure_report_added')));
    expect(audited).toHaveLength(1);
    // A subdomain's report belongs to its domain.
    expect((await upload(ARF_QUIRKY)).statusCode).toBe(201);

    const list = await get(DMARC_API.failureReports, { days: '365' });
    expect(list.statusCode).toBe(200);
    expect(list.json().total).toBe(2);
    const rfc = list.json().items.find((r: { reporter: string }) => r.reporter === 'mail.example.net');
    expect(rfc).toMatchObject({
      domain: 'acme.test',
      reportedDomain: 'acme.test',
      sourceIp: '192.0.2.1',
      authFailure: 'dmarc',
      originalRcptTo: 'j***@mail.example.net',
      dkimSelector: 'news',
      source: 'upload',
    });
    expect(JSON.stringify(list.json())).not.toMatch(/confidential|jane\.doe|john\.smith/);
    const quirky = list.json().items.find((r: { reporter: string }) => r.reporter === 'yahoo.example');
    expect(quirky).toMatchObject({ domain: 'acme.test', reportedDomain: 'news.acme.test' });

    const paged = await get(DMARC_API.failureReports, { days: '365', limit: '1', offset: '1' });
    expect(paged.json()).toMatchObject({ total: 2 });
    expect(paged.json().items).toHaveLength(1);
    const none = await get(DMARC_API.failureReports, { days: '365', domain: 'nothing.example' });
    expect(none.json()).toEqual({ ownDomains: ['acme.test'], total: 0, items: [] });
    // Another tenant sees none of it.
    expect((await get(DMARC_API.failureReports, { days: '365' }, otherAdmin)).json().total).toBe(0);
  });

  it("refuses another domain's report and what is no failure report, recording why", async () => {
    const foreign = await upload(
      ARF_REPORT.replace('Reported-Domain: acme.test', 'Reported-Domain: elsewhere.example'),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toBe(
      'The report is about elsewhere.example, which is not one of your domains (acme.test)',
    );
    const abuse = await upload(ARF_REPORT.replace('auth-failure', 'abuse'), 'message/rfc822');
    expect(abuse.statusCode).toBe(400);
    expect(abuse.json().message).toMatch(/not a DMARC failure report/);
    const refused = await t.db
      .select()
      .from(dmarcIntake)
      .where(
        and(
          eq(dmarcIntake.tenantId, tenantId),
          eq(dmarcIntake.outcome, 'refused'),
          eq(dmarcIntake.kind, 'failure'),
        ),
      );
    expect(refused).toHaveLength(2);
  });
});

describe('TLS reports: upload and list', () => {
  it('takes JSON and gzip in once each, sums sessions per domain, lists each policy and failure', async () => {
    const rfc = await upload(TLS_RFC_REPORT, 'application/json');
    expect(rfc.statusCode, rfc.body).toBe(201);
    expect(rfc.json()).toMatchObject({ kind: 'tls', orgName: 'Company-X', messages: 5629, rows: 1 });
    expect((await upload(gzipSync(TLS_GOOGLE_REPORT), 'application/tlsrpt+gzip')).statusCode).toBe(201);
    expect((await upload(TLS_MICROSOFT_REPORT)).statusCode).toBe(201);
    const again = await upload(gzipSync(TLS_RFC_REPORT), 'application/gzip');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ duplicate: true, id: rfc.json().id });
    expect(
      await t.db.select().from(dmarcTlsReports).where(eq(dmarcTlsReports.tenantId, tenantId)),
    ).toHaveLength(3);

    const list = await get(DMARC_API.tlsReports, { days: '365' });
    expect(list.statusCode).toBe(200);
    expect(list.json().domains).toEqual([{ domain: 'acme.test', reports: 3, successful: 5459, failed: 305 }]);
    expect(list.json().total).toBe(3);
    const company = list.json().items.find((r: { orgName: string }) => r.orgName === 'Company-X');
    expect(company.policies[0].failureDetails).toHaveLength(3);
    expect(company.policies[0].failureDetails[1]).toMatchObject({
      resultType: 'starttls-not-supported',
      receivingIp: '203.0.113.56',
      failedSessions: 200,
    });
    expect((await get(DMARC_API.tlsReports, { days: '365' }, otherAdmin)).json().domains).toEqual([]);
  });

  it('refuses a JSON that is no TLS report, and one about a domain not served, with the reason', async () => {
    const notReport = await upload('{"name": "a JSON file"}', 'application/json');
    expect(notReport.statusCode).toBe(400);
    expect(notReport.json().message).toMatch(/not an SMTP TLS report/);
    const foreign = await upload(
      TLS_GOOGLE_REPORT.replaceAll('acme.test', 'other.example').replace('Google', 'G2'),
    );
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().message).toMatch(/about other\.example, which is not one of your domains/);
    const badDays = await get(DMARC_API.tlsReports, { days: '12' });
    expect(badDays.statusCode).toBe(400);
  });

  it('reads a large TLS report on the report worker, and refuses a large broken one with the reason', async () => {
    // 2,000 failure details (over 250 KB): past the size read on the event loop.
    const report = JSON.parse(TLS_RFC_REPORT);
    report['report-id'] = 'large-report-1';
    const detail = report.policies[0]['failure-details'][0];
    report.policies[0]['failure-details'] = Array.from({ length: 2_000 }, (_, i) => ({
      ...detail,
      'sending-mta-ip': `2001:db8:abcd::${(i + 1).toString(16)}`,
      'failed-session-count': 1,
    }));
    report.policies[0].summary['total-failure-session-count'] = 2_000;
    const body = JSON.stringify(report);
    expect(body.length).toBeGreaterThan(250_000);
    const taken = await upload(body, 'application/json');
    expect(taken.statusCode, taken.body).toBe(201);
    expect(taken.json()).toMatchObject({ kind: 'tls', duplicate: false, orgName: 'Company-X' });
    const [row] = await t.db
      .select()
      .from(dmarcTlsReports)
      .where(and(eq(dmarcTlsReports.tenantId, tenantId), eq(dmarcTlsReports.reportId, 'large-report-1')));
    expect(row).toMatchObject({ failed: 2_000 });
    // The ten failures with most sessions are kept, the rest counted.
    expect(row!.policies[0]!.failureDetails).toHaveLength(10);
    expect(row!.policies[0]!.moreFailureDetails).toBe(1_990);

    const broken = await upload(gzipSync(`${body.slice(0, -2)}`), 'application/gzip');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().message).toMatch(/TLS report|JSON/);
  });

  it('keeps what a forged report sends within what PostgreSQL stores and sums: no NUL, no lone surrogate, bounded counts', async () => {
    const report = JSON.parse(TLS_RFC_REPORT);
    report['report-id'] = 'forged-1';
    report['organization-name'] = 'Org\u0000X\ud800';
    report.policies[0].policy['mx-host'] = 'mx\udc00.acme.test';
    const taken = await upload(JSON.stringify(report), 'application/json');
    expect(taken.statusCode, taken.body).toBe(201);
    const [row] = await t.db
      .select()
      .from(dmarcTlsReports)
      .where(and(eq(dmarcTlsReports.tenantId, tenantId), eq(dmarcTlsReports.reportId, 'forged-1')));
    expect(row!.orgName).toBe('Org X\ufffd');
    // A forged report under a real reporter's id first does not make the real one a duplicate.
    const real = JSON.parse(TLS_RFC_REPORT);
    real['report-id'] = 'predictable-1';
    const forged = structuredClone(real);
    forged.policies[0].summary['total-failure-session-count'] = 999;
    expect((await upload(JSON.stringify(forged), 'application/json')).statusCode).toBe(201);
    expect((await upload(JSON.stringify(real), 'application/json')).statusCode).toBe(201);
    expect((await upload(JSON.stringify(real), 'application/json')).json()).toMatchObject({
      duplicate: true,
    });
    // A count past a trillion sessions is no report (two such would overflow any sum).
    report['report-id'] = 'forged-2';
    report.policies[0].summary['total-successful-session-count'] = 9_007_199_254_740_991;
    const huge = await upload(JSON.stringify(report), 'application/json');
    expect(huge.statusCode).toBe(400);
    expect((await get(DMARC_API.tlsReports)).statusCode).toBe(200);
  });

  it('is for admins only', async () => {
    expect((await get(DMARC_API.tlsReports, {}, user)).statusCode).toBe(403);
    expect((await get(DMARC_API.failureReports, {}, user)).statusCode).toBe(403);
    expect((await upload(TLS_RFC_REPORT, 'application/json', user)).statusCode).toBe(403);
  });
});
