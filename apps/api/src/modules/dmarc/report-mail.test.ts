import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { DMARC_API, reportAddressOf } from '@moat/contracts/dmarc';
import { eq } from 'drizzle-orm';
import { zipSync } from 'fflate';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dmarcIntake, dmarcRecords, inboundMessages, outbox, tenantDomains } from '../../db/schema.ts';
import type { SmtpIn } from '../../mail/gateway/smtp-in.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { startRunningGateway, until } from '../../test/gateway.ts';
import { noDns } from '../../test/installation.ts';
import { GOOGLE_REPORT, MICROSOFT_REPORT } from './test-reports.ts';

/*
 * Reports sent as mail to a domain's report address, through the gateway's front door with
 * Debian's swaks as the reporter's mail server: taken in (never delivered, never scanned), each
 * file recorded once, a broken one refused with its reason while the rest of the message's are
 * taken in.
 */

const run = promisify(execFile);
/** What the next hop received, by recipient. */
const delivered: string[] = [];
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    stream.resume();
    stream.on('end', () => {
      delivered.push(...session.envelope.rcptTo.map((r) => r.address));
      callback();
    });
  },
});

let t: Awaited<ReturnType<typeof buildTestApp>>;
let door: SmtpIn;
let port: number;
let tenantId: string;
let admin: Record<string, string>;
let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dmarc-mail-'));
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkPort = (sink.server.address() as { port: number }).port;
  t = await buildTestApp({
    dnsResolver: noDns as never,
    env: { SMTP_HOSTNAME: 'mx.moat.test', SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}` },
  });
  const tenant = await buildTenant(t.db, { domain: 'acme.test' });
  tenantId = tenant.id;
  // Only the tenant's known people are taken at RCPT: the report address is no person.
  await t.db
    .update(tenantDomains)
    .set({ recipientVerification: 'known' })
    .where(eq(tenantDomains.domain, 'acme.test'));
  await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
  const a = await buildUser(t.db, tenant.id, { email: 'admin@acme.test', role: 'admin' });
  admin = { cookie: `${SESSION_COOKIE}=${(await buildSession(t.db, a)).token}`, ...CSRF };
  ({ door, port } = await startRunningGateway(t));
});
afterAll(async () => {
  await door.close();
  await t.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** swaks sends one message; its transcript (swaks exits non-zero on a refusal). */
async function swaks(args: string[]): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout } = await run('swaks', ['--server', `127.0.0.1:${port}`, '--silent', '1', ...args]);
    return { ok: true, out: stdout };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function file(name: string, content: Uint8Array | string): string {
  const at = path.join(dir, name);
  fs.writeFileSync(at, content);
  return at;
}

/** A reporter's message: one attached file each. */
const report = (
  to: string,
  subject: string,
  attachments: Array<{ type: string; name: string; at: string }>,
) =>
  swaks([
    '--to',
    to,
    '--from',
    'noreply-dmarc-support@google.com',
    '--header',
    `Subject: ${subject}`,
    '--body',
    'This is an aggregate report from google.com.',
    ...attachments.flatMap((a) => ['--attach-type', a.type, '--attach-name', a.name, '--attach', `@${a.at}`]),
  ]);

const intakeRows = () => t.db.select().from(dmarcIntake).where(eq(dmarcIntake.tenantId, tenantId));
const processed = async () =>
  (await t.db.select().from(inboundMessages)).every((m) => m.status === 'processed');

describe('DMARC reports by mail to the report address', () => {
  it('takes a zipped and a gzipped report in, counts a resend once, and delivers nothing', async () => {
    const to = reportAddressOf('acme.test');
    const zipped = file(
      'google.zip',
      zipSync({ 'google.com!acme.test!1764633600!1764719999.xml': Buffer.from(GOOGLE_REPORT) }),
    );
    const gzipped = file('outlook.xml.gz', gzipSync(MICROSOFT_REPORT));
    const sent = await report(to, 'Report domain: acme.test Submitter: google.com', [
      { type: 'application/zip', name: 'google.com!acme.test!1764633600!1764719999.zip', at: zipped },
    ]);
    expect(sent.ok, sent.out).toBe(true);
    const microsoft = await report(
      to,
      'Report Domain: acme.test Submitter: enterprise.protection.outlook.com',
      [
        {
          type: 'application/gzip',
          name: 'enterprise.protection.outlook.com!acme.test!1764633600!1764720000.xml.gz',
          at: gzipped,
        },
      ],
    );
    expect(microsoft.ok, microsoft.out).toBe(true);
    // The same report sent again (reporters retry).
    expect(
      (
        await report(to, 'Report domain: acme.test (again)', [
          { type: 'application/gzip', name: 'again.xml.gz', at: gzipped },
        ])
      ).ok,
    ).toBe(true);
    await until(async () => (await intakeRows()).length === 3 && (await processed()));

    const records = await t.app.inject({ method: 'GET', url: DMARC_API.records, headers: admin });
    // Google's 45 messages from two sources and Microsoft's, once.
    const body = records.json();
    expect(body.items.map((r: { orgName: string }) => r.orgName).sort()).toEqual([
      'Enterprise Outlook',
      'google.com',
      'google.com',
    ]);
    const intake = await t.app.inject({ method: 'GET', url: DMARC_API.intake, headers: admin });
    expect(
      intake.json().items.map((i: { outcome: string; source: string }) => [i.outcome, i.source]),
    ).toEqual([
      ['duplicate', 'mail'],
      ['added', 'mail'],
      ['added', 'mail'],
    ]);
    expect(intake.json().items[2]).toMatchObject({
      sender: 'noreply-dmarc-support@google.com',
      subject: 'Report domain: acme.test Submitter: google.com',
      kind: 'aggregate',
    });
    // Never delivered onward: nothing was queued for the report address.
    const queued = await t.db.select().from(outbox).where(eq(outbox.toAddress, to));
    expect(queued).toEqual([]);
  });

  it('refuses a broken file with its reason while taking the rest of the message in, and mail that is no report', async () => {
    const to = reportAddressOf('acme.test');
    const dtd = file(
      'bomb.xml',
      '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><feedback>&a;</feedback>',
    );
    const yahoo = file(
      'yahoo.xml',
      GOOGLE_REPORT.replace('<org_name>google.com</org_name>', '<org_name>Yahoo</org_name>').replace(
        '4312398455187346520',
        '1764633600.yahoo',
      ),
    );
    const sent = await report(to, 'Two files, one broken', [
      { type: 'application/xml', name: 'bomb.xml', at: dtd },
      { type: 'text/xml', name: 'yahoo.xml', at: yahoo },
    ]);
    expect(sent.ok, sent.out).toBe(true);
    const chatter = await swaks([
      '--to',
      to,
      '--from',
      'someone@example.net',
      '--header',
      'Subject: hello',
      '--body',
      'Is this the right address?',
    ]);
    expect(chatter.ok).toBe(true);
    await until(async () => (await intakeRows()).length === 6 && (await processed()));

    const refused = await t.app.inject({
      method: 'GET',
      url: DMARC_API.intake,
      headers: admin,
      query: { outcome: 'refused' },
    });
    expect(refused.json().items).toEqual([
      expect.objectContaining({
        subject: 'hello',
        kind: 'unknown',
        reason: expect.stringMatching(/holds no DMARC report/),
      }),
      expect.objectContaining({ fileName: 'bomb.xml', reason: expect.stringMatching(/declares a DTD/) }),
    ]);
    const yahooRows = await t.app.inject({
      method: 'GET',
      url: DMARC_API.records,
      headers: admin,
      query: { domain: 'acme.test' },
    });
    expect(yahooRows.json().items.some((r: { orgName: string }) => r.orgName === 'Yahoo')).toBe(true);
  });

  it('delivers the other recipients of a message as usual; a report address of a domain not served is refused', async () => {
    const before = (await t.db.select().from(dmarcRecords)).length;
    const both = await swaks([
      '--to',
      `ana@acme.test,${reportAddressOf('acme.test')}`,
      '--from',
      'colleague@partner.example',
      '--header',
      'Subject: Lunch?',
      '--body',
      'Shall we meet at noon?',
    ]);
    expect(both.ok, both.out).toBe(true);
    await until(async () => delivered.includes('ana@acme.test'));
    expect(delivered).not.toContain(reportAddressOf('acme.test'));
    expect((await t.db.select().from(dmarcRecords)).length).toBe(before);

    const unknown = await swaks(['--to', 'somebody@acme.test', '--from', 'x@example.net', '--body', 'hi']);
    expect(unknown.out).toMatch(/550 5\.1\.1/);
    const foreign = await swaks([
      '--to',
      reportAddressOf('other.example'),
      '--from',
      'x@example.net',
      '--body',
      'hi',
    ]);
    expect(foreign.out).toMatch(/550 5\.7\.1 Relaying denied/);
  });
});
