import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API, reportAddressOf } from '@moat/contracts/dmarc';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dmarcIntake, inboundMessages, outbox } from '../../db/schema.ts';
import type { SmtpIn } from '../../mail/gateway/smtp-in.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { startRunningGateway, until } from '../../test/gateway.ts';
import { noDns } from '../../test/installation.ts';
import { ARF_REPORT, TLS_GOOGLE_REPORT, TLS_MICROSOFT_REPORT } from './failure-tls-samples.ts';

/*
 * A failure report and TLS reports sent as mail to a domain's report address through the
 * gateway's front door, with Debian's swaks as the reporters' mail servers: taken in once, never
 * delivered onward; the intake says what became of each.
 */

const run = promisify(execFile);
let t: Awaited<ReturnType<typeof buildTestApp>>;
let door: SmtpIn;
let port: number;
let tenantId: string;
let admin: Record<string, string>;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dmarc-ftls-'));
  t = await buildTestApp({ dnsResolver: noDns as never, env: { SMTP_HOSTNAME: 'mx.moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  const a = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
  admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
  ({ door, port } = await startRunningGateway(t));
});
afterAll(async () => {
  await door.close();
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function swaks(args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run('swaks', ['--server', `127.0.0.1:${port}`, '--silent', '1', ...args]);
    return { ok: true, out: stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

const intakeRows = () => t.db.select().from(dmarcIntake).where(eq(dmarcIntake.tenantId, tenantId));
const processed = async () =>
  (await t.db.select().from(inboundMessages)).every((m) => m.status === 'processed');

describe('failure and TLS reports by mail to the report address', () => {
  it('takes an ARF message and TLS reports in once each, and delivers nothing', async () => {
    const to = reportAddressOf('acme.test');
    // The failure report is the message itself, as the reporter's server sends it.
    const arf = path.join(dir, 'arf.eml');
    fs.writeFileSync(arf, ARF_REPORT);
    const sentArf = await swaks([
      '--to',
      to,
      '--from',
      'dmarc-noreply@mail.example.net',
      '--data',
      `@${arf}`,
    ]);
    expect(sentArf.ok, sentArf.out).toBe(true);
    // Google's TLS report: application/tlsrpt+gzip, attached.
    const google = path.join(dir, 'google.json.gz');
    fs.writeFileSync(google, gzipSync(TLS_GOOGLE_REPORT));
    const sentGoogle = await swaks([
      '--to',
      to,
      '--from',
      'noreply-smtp-tls-reporting@google.com',
      '--header',
      'Subject: Report Domain: acme.test Submitter: google.com Report-ID: <2026.12.02T00.00.00Z+acme.test@google.com>',
      '--header',
      'TLS-Report-Domain: acme.test',
      '--header',
      'TLS-Report-Submitter: google.com',
      '--body',
      'This is an aggregate TLS report from google.com',
      '--attach-type',
      'application/tlsrpt+gzip',
      '--attach-name',
      'google.com!acme.test!1764633600!1764719999!001.json.gz',
      '--attach',
      `@${google}`,
    ]);
    expect(sentGoogle.ok, sentGoogle.out).toBe(true);
    // Microsoft's, plain JSON, sent twice (reporters retry).
    const microsoft = path.join(dir, 'microsoft.json');
    fs.writeFileSync(microsoft, TLS_MICROSOFT_REPORT);
    for (const subject of ['TLS report', 'TLS report (again)']) {
      const sent = await swaks([
        '--to',
        to,
        '--from',
        'tlsrpt-noreply@microsoft.com',
        '--header',
        `Subject: ${subject}`,
        '--body',
        'TLS report',
        '--attach-type',
        'application/tlsrpt+json',
        '--attach-name',
        'enterprise.protection.outlook.com!acme.test!1764633600!1764720000.json',
        '--attach',
        `@${microsoft}`,
      ]);
      expect(sent.ok, sent.out).toBe(true);
    }
    // A JSON attachment that is no TLS report: refused with its reason.
    const junk = path.join(dir, 'notes.json');
    fs.writeFileSync(junk, '{"hello": "world"}');
    const sentJunk = await swaks([
      '--to',
      to,
      '--from',
      'someone@example.net',
      '--header',
      'Subject: some JSON',
      '--body',
      'see attached',
      '--attach-type',
      'application/json',
      '--attach-name',
      'notes.json',
      '--attach',
      `@${junk}`,
    ]);
    expect(sentJunk.ok, sentJunk.out).toBe(true);
    await until(async () => (await intakeRows()).length === 5 && (await processed()));

    const intake = await t.app.inject({ method: 'GET', url: DMARC_API.intake, headers: admin });
    const rows = intake.json().items as Array<{
      kind: string;
      outcome: string;
      reason: string;
      subject: string;
    }>;
    expect(rows.map((r) => [r.kind, r.outcome]).sort()).toEqual(
      [
        ['failure', 'added'],
        ['tls', 'added'],
        ['tls', 'added'],
        ['tls', 'duplicate'],
        ['tls', 'refused'],
      ].sort(),
    );
    expect(rows.find((r) => r.outcome === 'refused')).toMatchObject({
      subject: 'some JSON',
      reason: expect.stringMatching(/not an SMTP TLS report/),
    });

    const failures = await t.app.inject({ method: 'GET', url: DMARC_API.failureReports, headers: admin });
    expect(failures.json().items).toEqual([
      expect.objectContaining({
        reporter: 'mail.example.net',
        domain: 'acme.test',
        sourceIp: '192.0.2.1',
        source: 'mail',
        originalRcptTo: 'j***@mail.example.net',
      }),
    ]);
    expect(failures.body).not.toMatch(/confidential/);
    const tls = await t.app.inject({ method: 'GET', url: DMARC_API.tlsReports, headers: admin });
    expect(tls.json().domains).toEqual([{ domain: 'acme.test', reports: 2, successful: 133, failed: 2 }]);
    // Never delivered onward.
    expect(await t.db.select().from(outbox).where(eq(outbox.toAddress, to))).toEqual([]);
  });
});
