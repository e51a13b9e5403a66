import { eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailLog, securityTools } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { startRbldnsd } from '../../test/daemons/rbldnsd.ts';
import { skipReason } from '../../test/daemons/spamd.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { createInboundRepo } from './inbound.repo.ts';

const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

// Locally a missing rbldnsd skips these tests; in CI, startup fails naming the package.
const skip = skipReason('rbldnsd', 'rbldnsd');

describe.skipIf(skip !== null)('SMTP gateway with DNS blocklists (a real rbldnsd)', () => {
  let rbldnsd: Awaited<ReturnType<typeof startRbldnsd>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;

  beforeAll(async () => {
    rbldnsd = await startRbldnsd([
      { zone: 'bl.test', type: 'ip4set', lines: ['192.0.2.7 :127.0.0.2:Seen sending spam'] },
      { zone: 'uri.test', type: 'dnset', lines: ['lure.example :127.0.1.2:Phishing site'] },
    ]);
    t = await buildTestApp({
      dnsResolver: noDns as never,
      env: {
        SMTP_HOSTNAME: 'mx.moat.test',
        DNSBL_ZONES: 'bl.test',
        URIBL_ZONES: 'uri.test=phishing',
        DNS_SERVERS: rbldnsd.server,
      },
    });
    const tenant = await buildTenant(t.db, { domain: 'acme.test' });
    await buildUser(t.db, tenant.id, { email: 'ana@acme.test' });
    // The blocklists' verdicts alone: what anti-phishing makes of a link is its own suite's.
    await t.db.insert(securityTools).values({ tenantId: tenant.id, name: 'ap_avanan', state: 'disabled' });
    // A tenant that turned Anti-Spam off (Security Engines): no blocklist either.
    const quiet = await buildTenant(t.db, { domain: 'quiet.test' });
    await buildUser(t.db, quiet.id, { email: 'kim@quiet.test' });
    for (const name of ['ap_avanan', 'anti_spam'])
      await t.db.insert(securityTools).values({ tenantId: quiet.id, name, state: 'disabled' });
  });
  afterAll(async () => {
    await t?.close();
    await rbldnsd?.stop();
  });

  /**
   * Sends a message as if from `clientIp`: the test connects over loopback (which no blocklist
   * is asked about), so the stored copy gets the address a sending server on the Internet has.
   */
  async function sendFrom(clientIp: string, subject: string, html = '<p>Hello</p>', to = 'ana@acme.test') {
    const inbound = createInboundRepo(t.db);
    const door = testSmtpIn({
      db: t.db,
      clock: t.app.clock,
      log: t.app.log,
      store: async (message) => {
        const [row] = await inbound.storeMany([{ ...message, clientIp, claimedBy: null, leaseUntil: null }]);
        return row!.id;
      },
    });
    const port = await door.listen(0, '127.0.0.1');
    try {
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true });
      await transport.sendMail({ from: 'Bob <bob@outside.test>', to, subject, html });
      transport.close();
    } finally {
      await door.close();
    }
    await t.app.services.gateway.processor.drain();
    const [log] = await t.db.select().from(mailLog).where(eq(mailLog.subject, subject));
    return log!;
  }

  it('lists the engine as on, with its zones', () => {
    const engine = t.app.services.gateway.engines.find((e) => e.name === 'dnsbl');
    expect(engine).toMatchObject({
      status: 'on',
      detail: 'client address on bl.test; links and sender domains on uri.test (phishing)',
    });
  });

  it('gives mail from a listed server the spam verdict, saying why', async () => {
    const log = await sendFrom('192.0.2.7', 'From a listed server');
    expect(log).toMatchObject({ verdict: 'spam', action: 'delivered_banner' });
    expect(log.reasons).toContain('The sending server 192.0.2.7 is listed on bl.test (Seen sending spam)');
  });

  it('delivers mail from an unlisted server as before', async () => {
    const log = await sendFrom('192.0.2.8', 'From an unlisted server');
    expect(log).toMatchObject({ verdict: 'clean', action: 'delivered' });
  });

  it('quarantines mail with a link to a host on a phishing zone', async () => {
    const log = await sendFrom(
      '192.0.2.8',
      'With a listed link',
      '<p>Please <a href="https://lure.example/login">sign in</a> today.</p>',
    );
    expect(log).toMatchObject({ verdict: 'phishing', action: 'quarantined' });
    expect(log.reasons).toContain('A link goes to lure.example, which is listed on uri.test (Phishing site)');
  });

  it('asks no blocklist for a tenant that turned Anti-Spam off', async () => {
    const log = await sendFrom('192.0.2.7', 'Listed server, anti-spam off', undefined, 'kim@quiet.test');
    expect(log).toMatchObject({ verdict: 'clean', action: 'delivered' });
  });
});
