import type net from 'node:net';
import { CONSOLE_API } from '@moat/contracts/console';
import { SETTINGS_API } from '@moat/contracts/settings';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { outbox, tenantDomains } from '../db/schema.ts';
import { buildTestApp } from '../test/app.ts';
import { signedInAs } from '../test/console.ts';
import { chooseSender, isMailDomain } from './sender.ts';

describe('isMailDomain', () => {
  it.each([
    ['acme.test', true],
    ['Mail.Example.COM.', true],
    ['127.0.0.1', false],
    ['[::1]', false],
    ['::1', false],
    ['localhost', false],
    ['moat.localhost', false],
    ['myhost', false],
    ['10.1', false],
    ['', false],
  ])('%s → %s', (host, expected) => {
    expect(isMailDomain(host)).toBe(expected);
  });
});

describe('chooseSender', () => {
  const none = { mailFrom: null, mailFromSet: false };
  const fromUrl = { mailFrom: 'no-reply@moat.example.com', mailFromSet: false };
  const set = { mailFrom: 'mail@provider.example', mailFromSet: true };
  it("takes the tenant's own, then MAIL_FROM, then its first mail domain, then PUBLIC_URL's host", () => {
    expect(chooseSender(set, { own: 'soc@acme.test', domains: ['acme.test'] })).toEqual({
      address: 'soc@acme.test',
      source: 'settings',
    });
    expect(chooseSender(set, { own: null, domains: ['acme.test'] }).source).toBe('mail_from');
    expect(chooseSender(fromUrl, { own: null, domains: ['x.localhost', 'acme.test'] })).toEqual({
      address: 'no-reply@acme.test',
      source: 'tenant_domain',
    });
    expect(chooseSender(fromUrl, { own: null, domains: [] })).toEqual({
      address: 'no-reply@moat.example.com',
      source: 'public_url',
    });
  });
  it('answers none rather than an address on an IP literal or localhost', () => {
    expect(chooseSender(none, { own: null, domains: [] })).toEqual({ address: null, source: 'none' });
    expect(chooseSender(none, { own: 'x@moat.localhost', domains: ['moat.localhost'] }).address).toBeNull();
  });
});

describe('the defaults of MAIL_FROM and SUPPORT_EMAIL', () => {
  it('come from PUBLIC_URL only when its host is a mail domain', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://moat.example.com' })).toMatchObject({
      mailFrom: 'no-reply@moat.example.com',
      mailFromSet: false,
      supportEmail: 'support@moat.example.com',
    });
    for (const url of [
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
      'http://box:8080',
    ]) {
      expect(loadConfig({ PUBLIC_URL: url }), url).toMatchObject({ mailFrom: null, supportEmail: null });
    }
    expect(loadConfig({}).mailFrom).toBeNull();
  });
  it('refuse an address on an IP literal or localhost', () => {
    expect(() => loadConfig({ MAIL_FROM: 'no-reply@127.0.0.1' })).toThrow(
      /^Invalid configuration: MAIL_FROM must be an address on a mail domain/,
    );
    expect(() => loadConfig({ SUPPORT_EMAIL: 'support@localhost' })).toThrow(
      /^Invalid configuration: SUPPORT_EMAIL must be an address on a mail domain/,
    );
  });
});

/**
 * A server reached at an IP address (PUBLIC_URL http://127.0.0.1) without MAIL_FROM, with a
 * relay: its mail comes from its tenants' domains, never from the IP address.
 */
describe("Moat's own mail, as it leaves", () => {
  const received: Array<{ from: string; data: string }> = [];
  let sink: SMTPServer;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => {
          data += chunk.toString();
        });
        stream.on('end', () => {
          received.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', data });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const port = (sink.server.address() as net.AddressInfo).port;
    t = await buildTestApp({
      env: { PUBLIC_URL: 'http://127.0.0.1:8080', SMTP_RELAY_URL: `smtp://127.0.0.1:${port}?pool=false` },
    });
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((resolve) => sink.close(() => resolve()));
  });

  const mail = (tenantId: string, to: string) => ({
    tenantId,
    kind: 'test',
    to,
    fromName: 'Moat',
    subject: `For ${to}`,
    text: 'hello',
    html: '',
  });

  it("comes from no-reply@ the tenant's first domain, and Settings says so", async () => {
    const org = await signedInAs(t.app, t.db, { tenant: { domain: 'acme-sender.test' } as never });
    const id = await t.app.services.mailer.send(mail(org.tenant.id, 'pat@acme-sender.test'));
    await t.app.services.mailer.drain();
    await expect
      .poll(async () => (await t.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.status)
      .toBe('sent');
    const sent = received.find((m) => m.data.includes('To: pat@acme-sender.test'))!;
    expect(sent.from).toBe('no-reply@acme-sender.test');
    expect(sent.data).toMatch(/^From: Moat <no-reply@acme-sender\.test>/m);
    expect(received.some((m) => m.from.includes('127.0.0.1') || m.data.includes('@127.0.0.1'))).toBe(false);
    const settings = (await org.get(SETTINGS_API.settings)).json();
    expect(settings.default_mail_from).toBe('no-reply@acme-sender.test');
    // No support address can be made from an IP address: "Contact support" says so.
    expect((await org.get(CONSOLE_API.deployment)).json().support_email).toBeNull();
  });

  it('without a mail domain there is no sender: Settings says so, and the mail waits rather than leave from the IP', async () => {
    const org = await signedInAs(t.app, t.db, { tenant: { domain: 'lonely.test' } as never });
    await t.db.delete(tenantDomains).where(eq(tenantDomains.tenantId, org.tenant.id));
    await t.db.insert(tenantDomains).values({ tenantId: org.tenant.id, domain: 'moat.localhost' });
    const settings = (await org.get(SETTINGS_API.settings)).json();
    expect(settings.default_mail_from).toBeNull();
    // Nor can a sender be set on it.
    const refused = await org.send('PUT', SETTINGS_API.settings, { mail_from_address: 'soc@moat.localhost' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([
      { field: 'body.mail_from_address', message: 'not_a_mail_domain' },
    ]);

    const before = received.length;
    const id = await t.app.services.mailer.send(mail(org.tenant.id, 'pat@elsewhere.test'));
    await t.app.services.mailer.drain();
    await expect
      .poll(async () => (await t.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.lastError)
      .toContain('No sender address');
    const [row] = await t.db.select().from(outbox).where(eq(outbox.id, id));
    // A failed attempt, retried with back-off: set MAIL_FROM (or a domain) and it goes.
    expect(row).toMatchObject({ status: 'failed', fromAddress: null, attempts: 1 });
    expect(received.length).toBe(before);
  });

  const resent = (tenantId: string, to: string) => ({
    tenantId,
    kind: 'release',
    to,
    fromName: 'Moat',
    subject: `Released for ${to}`,
    text: '',
    html: '',
    raw: new Uint8Array(
      Buffer.from(
        `From: Bob <bob@partner.test>\r\nTo: ${to}\r\nSubject: Released for ${to}\r\n\r\nHello\r\n`,
      ),
    ),
  });

  it("sends a released message (its own bytes, no envelope given) from the tenant's sender, its From header untouched", async () => {
    const org = await signedInAs(t.app, t.db, { tenant: { domain: 'acme-resend.test' } as never });
    const id = await t.app.services.mailer.send(resent(org.tenant.id, 'kim@acme-resend.test'));
    await t.app.services.mailer.drain();
    await expect
      .poll(async () => (await t.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.status)
      .toBe('sent');
    const sent = received.find((m) => m.data.includes('To: kim@acme-resend.test'))!;
    expect(sent.from).toBe('no-reply@acme-resend.test');
    expect(sent.data).toMatch(/^From: Bob <bob@partner\.test>/m);
  });

  it('sends a released message from the null sender when no sender can be chosen, rather than not at all', async () => {
    const org = await signedInAs(t.app, t.db, { tenant: { domain: 'lonely-resend.test' } as never });
    await t.db.delete(tenantDomains).where(eq(tenantDomains.tenantId, org.tenant.id));
    const id = await t.app.services.mailer.send(resent(org.tenant.id, 'kim@elsewhere-resend.test'));
    await t.app.services.mailer.drain();
    await expect
      .poll(async () => (await t.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.status)
      .toBe('sent');
    const sent = received.find((m) => m.data.includes('To: kim@elsewhere-resend.test'))!;
    expect(sent.from).toBe('');
    expect(sent.data).not.toContain('127.0.0.1');
  });
});
