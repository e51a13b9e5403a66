import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { eq } from 'drizzle-orm';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../cli/commands.ts';
import { outbox, tenantDomains } from '../../db/schema.ts';
import { cliActor } from '../../lib/actor.ts';
import { buildTestApp } from '../../test/app.ts';
import { selfSignedCertificate } from '../../test/certificates.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildTenant } from '../../test/factories.ts';
import { until } from '../../test/gateway.ts';
import { startReceiver, submit } from '../../test/submission.ts';

const run = promisify(execFile);

const zone: TestZone = {
  'outside.test': { MX: [{ priority: 10, exchange: 'mx.outside.test' }] },
  // The first MX listens nowhere: the next one is tried in the same attempt.
  'partner.test': {
    MX: [
      { priority: 5, exchange: 'down.partner.test' },
      { priority: 10, exchange: 'mx.outside.test' },
    ],
  },
  'down.partner.test': { A: ['127.0.0.9'] },
  'mx.outside.test': { A: ['127.0.0.1'] },
  'nomail.test': { MX: [{ priority: 0, exchange: '' }] },
};

const message = (from: string, to: string, subject: string) =>
  [
    `From: Ana <${from}>`,
    `To: ${to}`,
    `Subject: ${subject}`,
    'Date: Mon, 07 Dec 2026 10:00:00 +0000',
    `Message-ID: <${Math.random().toString(36).slice(2)}@acme.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'The figures are attached to the next message.',
    '',
  ].join('\r\n');

describe('outbound: submission with SMTP AUTH, DKIM-signed, delivered by MX', () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let mx: Awaited<ReturnType<typeof startReceiver>>;
  let own: Awaited<ReturnType<typeof startReceiver>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let port: number;
  let close: () => Promise<void>;
  let tenantId: string;
  let user: string;
  let pass: string;
  let otherUser: string;
  let otherPass: string;
  const cert = selfSignedCertificate('submit.moat.test');

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    mx = await startReceiver((rcpt) => (rcpt.startsWith('gone@') ? '5.1.1 No such user' : null));
    own = await startReceiver();
    t = await buildTestApp({
      env: {
        DNS_SERVERS: dns.address,
        OUTBOUND_MX_PORT: String(mx.port),
        // The test's MX is on loopback, which production never delivers to.
        OUTBOUND_MX_NETWORKS: 'any',
        // The tenant's own server, where bounces to its people arrive.
        SMTP_RELAY_URL: `smtp://127.0.0.1:${own.port}?pool=false`,
        SMTP_HOSTNAME: 'mx.moat.test',
        SMTP_TLS_KEY: cert.keyFile,
        SMTP_TLS_CERT: cert.certFile,
      },
    });
    tenantId = (await buildTenant(t.db, { domain: 'acme.test' })).id;
    const other = await buildTenant(t.db, { domain: 'other.test' });
    // Another organisation registered a subdomain of acme.test: it is theirs, not acme's.
    await t.db.insert(tenantDomains).values({ tenantId: other.id, domain: 'sub.acme.test' });
    const made = await t.app.services.outbound.credentials.create(tenantId, 'laptop', cliActor);
    user = made.credential.username;
    pass = made.password;
    const theirs = await t.app.services.outbound.credentials.create(other.id, '', cliActor);
    otherUser = theirs.credential.username;
    otherPass = theirs.password;
    // acme.test signs its mail; its key is published.
    const signing = await t.app.services.dkimSigning.setSigning(tenantId, 'acme.test', true, cliActor);
    const key = signing.keys[0]!;
    zone[key.recordName] = { TXT: [key.recordValue.match(/.{1,255}/g)!] };
    await t.app.services.mailer.start({ intervalMs: 60_000 });
    const submission = t.app.services.outbound.submission();
    port = await submission.listen(0, '127.0.0.1');
    close = () => submission.close();
  });
  afterAll(async () => {
    await close?.();
    await t?.close();
    await Promise.all([dns?.close(), mx?.close(), own?.close()]);
    fs.rmSync(cert.dir, { recursive: true, force: true });
  });

  it('takes mail from a tenant credential over STARTTLS, signs it and delivers it to the MX', async () => {
    const sent = await submit(port, {
      user,
      pass,
      tls: true,
      from: 'ana@acme.test',
      to: ['bo@outside.test', 'cy@partner.test'],
      raw: `Bcc: secret-boss@acme.test\r\n${message('ana@acme.test', 'bo@outside.test, cy@partner.test', 'Quarterly figures')}`,
    });
    expect(sent).toMatchObject({ ok: true });
    expect(sent.response).toMatch(/^250 2\.0\.0 Ok: queued as [0-9a-f-]{36}/);
    await until(() => mx.got.filter((m) => m.raw.includes('Quarterly figures')).length === 2);
    const delivered = mx.got.filter((m) => m.raw.includes('Quarterly figures'));
    expect(delivered.map((m) => m.to).sort()).toEqual([['bo@outside.test'], ['cy@partner.test']]);
    for (const m of delivered) {
      expect(m.from).toBe('ana@acme.test');
      const text = m.raw.toString();
      expect(text).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256; c=relaxed\/relaxed; d=acme\.test;/);
      // RFC 6409 §8.1: Bcc is removed before the message leaves.
      expect(text).not.toMatch(/^Bcc:/im);
      expect(text).toMatch(/\r\nReceived: from \[127\.0\.0\.1\] by mx\.moat\.test \(Moat\) with ESMTPSA id /);
      const { results } = await dkimVerify(m.raw, {
        resolver: async (name: string) => {
          const found = zone[name]?.TXT;
          if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
          return found;
        },
      } as Parameters<typeof dkimVerify>[1]);
      expect(results.map((r) => [r.status.result, r.signingDomain])).toEqual([['pass', 'acme.test']]);
    }
    // The outbox records each delivery once the receiving server took it.
    const statuses = async () =>
      (await t.db.select().from(outbox).where(eq(outbox.kind, 'outbound')))
        .filter((r) => r.subject === 'Quarterly figures')
        .map((r) => r.status);
    await until(async () => (await statuses()).join() === 'sent,sent');
  });

  it('takes the same from swaks with AUTH LOGIN (a real client)', async () => {
    const { stdout } = await run('swaks', [
      '--server',
      `127.0.0.1:${port}`,
      '--tls',
      '--tls-verify',
      '--tls-ca-path',
      cert.certFile,
      '--auth',
      'LOGIN',
      '--auth-user',
      user,
      '--auth-password',
      pass,
      '--from',
      'news@eu.acme.test',
      '--to',
      'bo@outside.test',
      '--header',
      'From: News <news@eu.acme.test>',
      '--header',
      'Subject: From swaks',
      '--ehlo',
      'client.acme.test',
    ]).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    expect(stdout).toContain('250 2.0.0 Ok: queued as');
    await until(() => mx.got.some((m) => m.raw.includes('From swaks')));
  });

  it('is no open relay: no login, a wrong one, another tenant’s domain or From are refused, nothing stored', async () => {
    const before = (await t.db.select().from(outbox)).length;
    const raw = message('ana@acme.test', 'bo@outside.test', 'Should not leave');
    const anonymous = await submit(port, { from: 'ana@acme.test', to: ['bo@outside.test'], raw });
    expect(anonymous).toMatchObject({ ok: false, code: 530 });
    const wrong = await submit(port, {
      user,
      pass: 'not it',
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(wrong).toMatchObject({ ok: false, code: 535 });
    // Another tenant's credential cannot send as acme.test, in the envelope or in the From header.
    const spoofEnvelope = await submit(port, {
      user: otherUser,
      pass: otherPass,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(spoofEnvelope).toMatchObject({ ok: false, code: 553 });
    expect(spoofEnvelope.response).toContain("not in your organisation's domains");
    const spoofHeader = await submit(port, {
      user: otherUser,
      pass: otherPass,
      from: 'x@other.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(spoofHeader).toMatchObject({ ok: false, code: 550 });
    expect(spoofHeader.response).toContain("From header's domain acme.test is not your organisation's");
    // A subdomain another organisation registered is theirs.
    const theirSub = await submit(port, {
      user,
      pass,
      from: 'x@sub.acme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(theirSub).toMatchObject({ ok: false, code: 553 });
    const theirSubHeader = await submit(port, {
      user,
      pass,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw: message('x@deep.sub.acme.test', 'bo@outside.test', 'Not theirs'),
    });
    expect(theirSubHeader).toMatchObject({ ok: false, code: 550 });
    // An address with a second @ or a Sender of another domain does not pass as the tenant's.
    const twoAts = await submit(port, {
      user,
      pass,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw: message('ceo@victim.example@acme.test', 'bo@outside.test', 'Two ats'),
    });
    expect(twoAts).toMatchObject({ ok: false, code: 550 });
    const sender = await submit(port, {
      user,
      pass,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw: `Sender: boss@other.test\r\n${raw}`,
    });
    expect(sender).toMatchObject({ ok: false, code: 550 });
    expect(sender.response).toContain('Sender header');
    // A lookalike of the tenant's domain is not its subdomain.
    const lookalike = await submit(port, {
      user,
      pass,
      from: 'ana@notacme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(lookalike).toMatchObject({ ok: false, code: 553 });
    expect((await t.db.select().from(outbox)).length).toBe(before);
  });

  it('bounces to the sender what the destination refuses, and what cannot be delivered at all', async () => {
    for (const to of ['gone@outside.test', 'x@nomail.test', 'y@nxdomain.test']) {
      const sent = await submit(port, {
        user,
        pass,
        from: 'ana@acme.test',
        to: [to],
        raw: message('ana@acme.test', to, `To ${to}`),
      });
      expect(sent).toMatchObject({ ok: true });
    }
    await until(() => own.got.filter((m) => m.to[0] === 'ana@acme.test').length === 3);
    const bounces = own.got.filter((m) => m.to[0] === 'ana@acme.test').map((m) => m.raw.toString());
    expect(bounces.every((b) => /Subject: Undelivered Mail: To /.test(b))).toBe(true);
    expect(bounces.join('\n')).toContain('5.1.1 No such user');
    expect(bounces.join('\n')).toContain('accepts no mail (null MX)');
    expect(bounces.join('\n')).toContain('nxdomain.test does not exist');
    // Bounces come from the null sender, as RFC 5321 §4.5.5 asks.
    expect(own.got.filter((m) => m.to[0] === 'ana@acme.test').every((m) => m.from === '')).toBe(true);
  });

  it('refuses a revoked credential', async () => {
    const list = await t.app.services.outbound.credentials.list(tenantId);
    const laptop = list.find((c) => c.username === user)!;
    await t.app.services.outbound.credentials.revoke(tenantId, laptop.id, cliActor);
    const after = await submit(port, {
      user,
      pass,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw: message('ana@acme.test', 'bo@outside.test', 'After revoke'),
    });
    expect(after).toMatchObject({ ok: false, code: 535 });
  });

  it('tenant:smtp-credential prints a user name and password once, and they submit', async () => {
    const ctx = {
      db: t.db,
      config: { publicUrl: 'http://localhost', submissionPort: port },
      clock: { now: () => new Date() },
      cwd: process.cwd(),
    };
    const made = await runCommand(
      ['tenant:smtp-credential', '--tenant', 'acme.test', '--label', 'postfix'],
      ctx,
    );
    expect(made.exitCode).toBe(0);
    const username = /user name: (\S+)/.exec(made.stdout)![1]!;
    const password = /password: {2}(\S+)/.exec(made.stdout)![1]!;
    expect(made.stdout).toContain(`Submit on port ${port} with STARTTLS`);
    const sent = await submit(port, {
      user: username,
      pass: password,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw: message('ana@acme.test', 'bo@outside.test', 'Via the CLI credential'),
    });
    expect(sent).toMatchObject({ ok: true });
    const listed = await runCommand(['tenant:smtp-credential', '--tenant', 'acme.test', '--list'], ctx);
    expect(listed.stdout).toMatch(new RegExp(`${username} {2}active .*\\(postfix\\)`));
    expect(listed.stdout).not.toContain(password);
    const revoked = await runCommand(
      ['tenant:smtp-credential', '--tenant', 'acme.test', '--revoke', username],
      ctx,
    );
    expect(revoked.stdout).toContain(`Revoked ${username}`);
    const missing = await runCommand(
      ['tenant:smtp-credential', '--tenant', 'acme.test', '--revoke', username],
      ctx,
    );
    expect(missing.exitCode).not.toBe(0);
  });

  it('refuses mail that carries malware (the EICAR test file), storing nothing', async () => {
    const eicar = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';
    const raw = [
      'From: Ana <ana@acme.test>',
      'To: bo@outside.test',
      'Subject: The invoice',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain',
      '',
      'See attached.',
      '--b1',
      'Content-Type: application/octet-stream; name="invoice.com"',
      'Content-Disposition: attachment; filename="invoice.com"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from(eicar).toString('base64'),
      '--b1--',
      '',
    ].join('\r\n');
    const fresh = await t.app.services.outbound.credentials.create(tenantId, 'scan', cliActor);
    const before = (await t.db.select().from(outbox)).length;
    const sent = await submit(port, {
      user: fresh.credential.username,
      pass: fresh.password,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(sent).toMatchObject({ ok: false, code: 554 });
    expect(sent.response).toContain('it carries malware');
    expect((await t.db.select().from(outbox)).length).toBe(before);
  });

  // Last: it leaves this client address locked out for ten minutes.
  it('tells an address that keeps guessing passwords to wait, whatever it tries next', async () => {
    const made = await t.app.services.outbound.credentials.create(tenantId, 'after guessing', cliActor);
    const raw = message('ana@acme.test', 'bo@outside.test', 'After guessing');
    let refused: Awaited<ReturnType<typeof submit>> | null = null;
    for (let i = 0; i < 12; i += 1) {
      const guess = await submit(port, {
        user: made.credential.username,
        pass: `guess ${i}`,
        from: 'ana@acme.test',
        to: ['bo@outside.test'],
        raw,
      });
      if (guess.code === 421) {
        refused = guess;
        break;
      }
      expect(guess.code).toBe(535);
    }
    expect(refused?.response).toContain('Too many failed logins');
    const right = await submit(port, {
      user: made.credential.username,
      pass: made.password,
      from: 'ana@acme.test',
      to: ['bo@outside.test'],
      raw,
    });
    expect(right).toMatchObject({ ok: false, code: 421 });
  });
});
