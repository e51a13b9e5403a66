import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundHeld, securityEvents, securityTools, senderLists } from '../../db/schema.ts';
import { cliActor } from '../../lib/actor.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { buildTestApp } from '../../test/app.ts';
import { startDnsServer, type TestZone } from '../../test/dns-server.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { until } from '../../test/gateway.ts';
import { Jar, login, postJson } from '../../test/sign-in.ts';
import { type Received, startReceiver, submit } from '../../test/submission.ts';

const run = promisify(execFile);

const zone: TestZone = {
  'outside.test': { MX: [{ priority: 10, exchange: 'mx.outside.test' }] },
  'payroll.test': { MX: [{ priority: 10, exchange: 'mx.outside.test' }] },
  'mx.outside.test': { A: ['127.0.0.1'] },
};

const CARD = '4111 1111 1111 1111';
const IBAN = 'GB82 WEST 1234 5698 7654 32';

/** A plain message; `extra` are MIME parts (the message becomes multipart/mixed). */
function message(o: { from?: string; to?: string; subject: string; body: string; parts?: string[] }): string {
  const head = [
    `From: Ana <${o.from ?? 'ana@acme.test'}>`,
    `To: ${o.to ?? 'bo@outside.test'}`,
    `Subject: ${o.subject}`,
    'Date: Mon, 07 Dec 2026 10:00:00 +0000',
    `Message-ID: <${Math.random().toString(36).slice(2)}@acme.test>`,
    'MIME-Version: 1.0',
  ];
  if (!o.parts) return [...head, 'Content-Type: text/plain; charset=utf-8', '', o.body, ''].join('\r\n');
  return [
    ...head,
    'Content-Type: multipart/mixed; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    '',
    o.body,
    ...o.parts.flatMap((p) => ['--b1', p]),
    '--b1--',
    '',
  ].join('\r\n');
}

const attachment = (name: string, type: string, bytes: Uint8Array) =>
  [
    `Content-Type: ${type}; name="${name}"`,
    `Content-Disposition: attachment; filename="${name}"`,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(bytes).toString('base64').replace(/.{76}/g, '$&\r\n'),
  ].join('\r\n');

/** A Word document whose text holds `text`, as Word writes it (one paragraph). */
const docx = (text: string) =>
  zipSync({
    '[Content_Types].xml': new TextEncoder().encode('<?xml version="1.0"?><Types/>'),
    'word/document.xml': new TextEncoder().encode(
      `<?xml version="1.0"?><w:document xmlns:w="x"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
    ),
  });

describe('DLP on outbound mail: data types, actions, exceptions, held mail', () => {
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  let mx: Awaited<ReturnType<typeof startReceiver>>;
  let own: Awaited<ReturnType<typeof startReceiver>>;
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  let port: number;
  let close: () => Promise<void>;
  let tenantId: string;
  let user: string;
  let pass: string;
  const admin = new Jar();
  const plain = new Jar();

  const send = (raw: string, o: { from?: string; to?: string[] } = {}) =>
    submit(port, { user, pass, from: o.from ?? 'ana@acme.test', to: o.to ?? ['bo@outside.test'], raw });
  const api = (method: string, url: string, body?: unknown, jar = admin) =>
    body === undefined && method === 'GET'
      ? t.app.inject({ method: 'GET', url, cookies: jar.cookies })
      : postJson(t.app, jar, url, body, method as 'POST');
  const delivered = (subject: string) => mx.got.filter((m: Received) => m.raw.includes(subject));
  const noticeTo = (subject: string) => own.got.filter((m: Received) => m.raw.toString().includes(subject));
  const eventsOf = async (subject: string) =>
    t.db
      .select()
      .from(securityEvents)
      .where(and(eq(securityEvents.tenantId, tenantId), eq(securityEvents.subject, subject)));

  beforeAll(async () => {
    dns = await startDnsServer(zone);
    mx = await startReceiver();
    own = await startReceiver();
    t = await buildTestApp({
      env: {
        CAPTCHA_DIFFICULTY: '10',
        DNS_SERVERS: dns.address,
        OUTBOUND_MX_PORT: String(mx.port),
        OUTBOUND_MX_NETWORKS: 'any',
        // The tenant's own server: notices to its senders and alerts to its admins arrive here.
        SMTP_RELAY_URL: `smtp://127.0.0.1:${own.port}?pool=false`,
        SMTP_HOSTNAME: 'mx.moat.test',
      },
    });
    tenantId = (await buildTenant(t.db, { domain: 'acme.test' })).id;
    const hash = await hashPassword('admin password 1');
    await buildUser(t.db, tenantId, { email: 'admin@acme.test', role: 'admin', passwordHash: hash });
    await buildUser(t.db, tenantId, { email: 'ana@acme.test', role: 'user', passwordHash: hash });
    await login(t.app, admin, 'admin@acme.test', 'admin password 1');
    await login(t.app, plain, 'ana@acme.test', 'admin password 1');
    const made = await t.app.services.outbound.credentials.create(tenantId, 'server', cliActor);
    user = made.credential.username;
    pass = made.password;
    await t.app.services.mailer.start({ intervalMs: 60_000 });
    const submission = t.app.services.outbound.submission();
    port = await submission.listen(0, '127.0.0.1');
    close = () => submission.close();
  });
  afterAll(async () => {
    await close?.();
    await t?.close();
    await Promise.all([dns?.close(), mx?.close(), own?.close()]);
  });

  it('holds a card number sent by swaks, tells the sender and the admins, and keeps the number masked', async () => {
    const { stdout } = await run('swaks', [
      '--server',
      `127.0.0.1:${port}`,
      '--auth',
      'PLAIN',
      '--auth-user',
      user,
      '--auth-password',
      pass,
      '--from',
      'ana@acme.test',
      '--to',
      'bo@outside.test',
      '--header',
      'Subject: Card for the booking',
      '--body',
      `Please charge ${CARD}, expiry 12/29.`,
    ]);
    expect(stdout).toMatch(/250 2\.0\.0 Ok: queued as [0-9a-f-]{36}, held for review/);
    const [held] = await t.db
      .select()
      .from(outboundHeld)
      .where(eq(outboundHeld.subject, 'Card for the booking'));
    expect(held).toMatchObject({
      status: 'held',
      envelopeFrom: 'ana@acme.test',
      recipients: ['bo@outside.test'],
    });
    expect(held!.hits).toMatchObject([{ type: 'payment_card', count: 1, places: ['body'], action: 'hold' }]);
    const [event] = await eventsOf('Card for the booking');
    expect(event).toMatchObject({ engine: 'dlp', type: 'hold', severity: 'high', sender: 'ana@acme.test' });
    expect(event!.details.outbound_held_id).toBe(held!.id);
    // The number itself is nowhere: not in the event, the held row's hits, nor the notices.
    const digits = CARD.replaceAll(' ', '');
    for (const text of [JSON.stringify(event), JSON.stringify(held!.hits)]) {
      expect(text.replace(/\D/g, '')).not.toContain(digits);
      expect(text).toContain('4111 **** **** 1111');
    }
    await until(
      () =>
        noticeTo('Your message is held for review').length >= 1 && noticeTo('outgoing message').length >= 1,
    );
    const notice = noticeTo('Your message is held for review')[0]!;
    expect(notice.to).toEqual(['ana@acme.test']);
    expect(notice.raw.toString().replace(/\s/g, '')).not.toContain(digits);
    expect(noticeTo('outgoing message')[0]!.to).toEqual(['admin@acme.test']);
    expect(delivered('Card for the booking')).toEqual([]);

    // The admin sees it, releases it once; it goes to its recipient; a second release is refused.
    const list = JSON.parse((await api('GET', '/api/v1/outbound/held?status=held')).body);
    expect(list.items.map((i: { subject: string }) => i.subject)).toContain('Card for the booking');
    const release = await api('POST', `/api/v1/outbound/held/${held!.id}/release`, {});
    expect(release.statusCode).toBe(200);
    expect(JSON.parse(release.body)).toMatchObject({ status: 'released', decidedBy: 'admin@acme.test' });
    await until(() => delivered('Card for the booking').length === 1);
    // Its bytes are not kept once decided (the outbox holds the copy that is sent).
    const [after] = await t.db.select().from(outboundHeld).where(eq(outboundHeld.id, held!.id));
    expect(after!.raw.length).toBe(0);
    const again = await api('POST', `/api/v1/outbound/held/${held!.id}/decline`, {});
    expect(again.statusCode).toBe(409);
    expect(JSON.parse(again.body).message).toMatch(/released already by admin@acme\.test/);
  });

  it('finds a card number inside a Word attachment; a declined message is never sent and its sender is told', async () => {
    const raw = message({
      subject: 'Customer list',
      body: 'See the attached list.',
      parts: [
        attachment(
          'customers.docx',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          docx(`Jane Doe ${CARD}`),
        ),
      ],
    });
    const sent = await send(raw);
    expect(sent.response).toMatch(/held for review/);
    const [held] = await t.db.select().from(outboundHeld).where(eq(outboundHeld.subject, 'Customer list'));
    expect(held!.hits[0]).toMatchObject({ type: 'payment_card', places: ['customers.docx'] });
    const declined = await api('POST', `/api/v1/outbound/held/${held!.id}/decline`, {});
    expect(declined.statusCode).toBe(200);
    await until(() => noticeTo('was not sent').length >= 1);
    expect(noticeTo('was not sent')[0]!.to).toEqual(['ana@acme.test']);
    expect(delivered('Customer list')).toEqual([]);
  });

  it('delivers an IBAN with an event and an alert (notify), and mail with nothing sensitive without an event', async () => {
    expect((await send(message({ subject: 'Bank details', body: `Our account: ${IBAN}` }))).ok).toBe(true);
    expect(
      (await send(message({ subject: 'Lunch on Friday', body: 'Table at 12:30, order 2024-118-3341.' }))).ok,
    ).toBe(true);
    await until(() => delivered('Bank details').length === 1 && delivered('Lunch on Friday').length === 1);
    const [event] = await eventsOf('Bank details');
    expect(event).toMatchObject({ engine: 'dlp', type: 'detection', severity: 'medium' });
    expect(event!.description).toContain('GB82');
    expect(event!.description).not.toContain('5698 7654');
    expect(await eventsOf('Lunch on Friday')).toEqual([]);
  });

  it('refuses at submission what a type set to refuse finds (554); nothing is stored but the event', async () => {
    const put = await api('PUT', '/api/v1/dlp/data-types/private_key', { action: 'refuse' });
    expect(put.statusCode).toBe(200);
    const sent = await send(
      message({
        subject: 'Server key',
        body: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----',
      }),
    );
    expect(sent).toMatchObject({ ok: false, code: 554 });
    expect(sent.response).toMatch(/Private key/);
    expect(await t.db.select().from(outboundHeld).where(eq(outboundHeld.subject, 'Server key'))).toEqual([]);
    expect((await eventsOf('Server key'))[0]).toMatchObject({ type: 'block' });
  });

  it('applies custom rules (keyword threshold, RE2 expression) and refuses a bad expression with its reason', async () => {
    const bad = await api('POST', '/api/v1/dlp/custom-rules', {
      name: 'Bad',
      kind: 'regex',
      keywords: [],
      pattern: '(?=x)y',
      enabled: true,
      action: 'hold',
      threshold: 1,
    });
    expect(bad.statusCode).toBe(400);
    expect(JSON.parse(bad.body).message).toMatch(/look-around|not supported|valid/i);
    const keywords = await api('POST', '/api/v1/dlp/custom-rules', {
      name: 'Project Falcon',
      kind: 'keywords',
      keywords: ['falcon'],
      pattern: '',
      enabled: true,
      action: 'hold',
      threshold: 2,
    });
    expect(keywords.statusCode).toBe(200);
    const regex = await api('POST', '/api/v1/dlp/custom-rules', {
      name: 'Customer numbers',
      kind: 'regex',
      keywords: [],
      pattern: 'CUST-[0-9]{6}',
      enabled: true,
      action: 'refuse',
      threshold: 1,
    });
    expect(regex.statusCode).toBe(200);
    expect(
      (await send(message({ subject: 'One mention', body: 'Falcon is on track.' }))).response,
    ).not.toMatch(/held/);
    expect(
      (await send(message({ subject: 'Two mentions', body: 'Falcon is late; falcon needs budget.' })))
        .response,
    ).toMatch(/held/);
    const refused = await send(message({ subject: 'Customer', body: 'Account CUST-123456 is overdue.' }));
    expect(refused).toMatchObject({ ok: false, code: 554 });
    expect(refused.response).toMatch(/Customer numbers/);
    const tried = JSON.parse(
      (await api('POST', '/api/v1/dlp/test', { text: `falcon falcon CUST-000111 ${CARD}` })).body,
    );
    expect(tried.hits.map((h: { ruleName: string }) => h.ruleName).sort()).toEqual(
      ['Customer numbers', 'Payment card numbers', 'Project Falcon']
        .sort()
        .map((n) => expect.stringMatching(new RegExp(n.split(' ')[0]!, 'i'))),
    );
    expect(JSON.stringify(tried)).not.toContain('CUST-000111');
  });

  it('DLP exceptions: an allowed recipient domain is not checked; a blocked sender of the tenant is refused; inbound never sees them', async () => {
    for (const [list, kind, value] of [
      ['allow', 'domain', 'payroll.test'],
      ['block', 'sender', 'mallory@acme.test'],
    ] as const) {
      const res = await api('POST', '/api/v1/exceptions', { list, kind, scope: 'dlp', value });
      expect(res.statusCode, value).toBe(200);
    }
    const ip = await api('POST', '/api/v1/exceptions', {
      list: 'block',
      kind: 'ip_range',
      scope: 'dlp',
      value: '192.0.2.0/24',
    });
    expect(ip.statusCode).toBe(400);
    const payroll = await send(
      message({ to: 'hr@payroll.test', subject: 'Payroll card', body: `Card ${CARD}` }),
      {
        to: ['hr@payroll.test'],
      },
    );
    expect(payroll.response).not.toMatch(/held/);
    await until(() => delivered('Payroll card').length === 1);
    // An allowed address in the envelope alone excuses nothing: every sender identity must be allowed.
    const allowPayroll = await api('POST', '/api/v1/exceptions', {
      list: 'allow',
      kind: 'sender',
      scope: 'dlp',
      value: 'payroll@acme.test',
    });
    expect(allowPayroll.statusCode).toBe(200);
    const forged = await send(
      message({ from: 'eve@acme.test', subject: 'Forged allow', body: `Card ${CARD}` }),
      {
        from: 'payroll@acme.test',
      },
    );
    expect(forged.response).toMatch(/held for review/);
    // A card number in the subject is not kept there.
    const inSubject = await send(message({ subject: `Card ${CARD}`, body: 'as discussed' }));
    expect(inSubject.response).toMatch(/held for review/);
    const withheld = await t.db
      .select()
      .from(outboundHeld)
      .where(eq(outboundHeld.subject, '(subject withheld: it holds sensitive data)'));
    expect(withheld.length).toBe(1);
    expect(JSON.stringify(await t.db.select().from(securityEvents))).not.toContain('4111 1111 1111 1111');
    const mallory = await send(message({ from: 'mallory@acme.test', subject: 'Hello', body: 'hi' }), {
      from: 'mallory@acme.test',
    });
    expect(mallory).toMatchObject({ ok: false, code: 554 });
    // The gateway's inbound reader never returns DLP's entries.
    const rows = await t.db.select().from(senderLists).where(eq(senderLists.scope, 'dlp'));
    expect(rows.length).toBe(3);
    const policies = (await import('../../mail/gateway/gateway-policy.repo.ts')).createGatewayPolicyRepo(
      t.db,
    );
    expect(await policies.entriesAmong(tenantId, ['mallory@acme.test', 'payroll.test'])).toEqual([]);
    expect((await policies.entriesAmong(tenantId, ['mallory@acme.test'], undefined, 'outbound')).length).toBe(
      1,
    );
  });

  it('holds the mail of a sender past 200 messages an hour (a compromised account), with an event and an alert', async () => {
    const key = `outbound-sender:${tenantId}:cy@acme.test:msgs`;
    await t.app.services.counters.hitMany(Array.from({ length: 200 }, () => ({ key, windowMs: 3_600_000 })));
    const sent = await send(message({ from: 'cy@acme.test', subject: 'Invoice overdue', body: 'Pay now.' }), {
      from: 'cy@acme.test',
    });
    expect(sent.response).toMatch(/held for review/);
    const [held] = await t.db.select().from(outboundHeld).where(eq(outboundHeld.subject, 'Invoice overdue'));
    expect(held).toMatchObject({ reason: 'rate', hits: [] });
    const [event] = await eventsOf('Invoice overdue');
    expect(event).toMatchObject({ engine: 'gateway', type: 'hold', severity: 'high' });
    expect(event!.description).toMatch(/cy@acme\.test sent 201 messages in the last hour/);
    await until(() => noticeTo('unusually much mail').length >= 1);
    expect(noticeTo('unusually much mail')[0]!.to).toEqual(['cy@acme.test']);
  });

  it("holds outbound phishing (a brand lure from a compromised account) with the engine's evidence", async () => {
    const raw = [
      'From: "Microsoft 365" <dee@acme.test>',
      'To: bo@outside.test',
      'Subject: Unusual sign-in activity',
      'Date: Mon, 07 Dec 2026 10:00:00 +0000',
      'Message-ID: <lure-1@acme.test>',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>We detected unusual sign-in activity. Verify your account within 24 hours.</p><a href="https://micros0ft-login.example/owa/auth">https://login.microsoftonline.com/</a>',
      '',
    ].join('\r\n');
    const sent = await send(raw, { from: 'dee@acme.test' });
    expect(sent.response).toMatch(/held for review/);
    const [held] = await t.db
      .select()
      .from(outboundHeld)
      .where(eq(outboundHeld.subject, 'Unusual sign-in activity'));
    expect(held).toMatchObject({ reason: 'phishing' });
    const [event] = await eventsOf('Unusual sign-in activity');
    expect(event).toMatchObject({ engine: 'anti_phishing', verdict: 'phishing', type: 'hold' });
    expect(event!.description).toMatch(/looks like phishing/);
    expect(delivered('Unusual sign-in activity')).toEqual([]);
  });

  it('checks nothing when the tenant turned DLP off (Security Engines)', async () => {
    await t.db.insert(securityTools).values({ tenantId, name: 'dlp', state: 'disabled' });
    t.app.services.caches.changed('security_tools');
    const sent = await send(message({ subject: 'Card while off', body: `Card ${CARD}` }));
    expect(sent.response).not.toMatch(/held/);
    await until(() => delivered('Card while off').length === 1);
    await t.db.delete(securityTools).where(eq(securityTools.tenantId, tenantId));
    t.app.services.caches.changed('security_tools');
  });

  it('takes settings from admins only, and refuses bad ones with a 400', async () => {
    expect((await api('GET', '/api/v1/dlp/data-types', undefined, plain)).statusCode).toBe(403);
    const settings = JSON.parse((await api('GET', '/api/v1/dlp/data-types')).body);
    expect(settings.dataTypes.map((d: { type: string }) => d.type)).toContain('payment_card');
    for (const [url, body] of [
      ['/api/v1/dlp/data-types/nope', { action: 'hold' }],
      ['/api/v1/dlp/data-types/iban', { threshold: 0 }],
      ['/api/v1/dlp/data-types/iban', { action: 'explode' }],
      ['/api/v1/dlp/data-types/file_type', { fileTypes: ['../etc'] }],
    ] as const) {
      expect((await api('PUT', url, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    const changed = JSON.parse(
      (await api('PUT', '/api/v1/dlp/data-types/file_type', { fileTypes: ['.PST', 'kdbx'] })).body,
    );
    expect(changed.fileTypes).toEqual(['pst', 'kdbx']);
    expect(
      (await api('POST', '/api/v1/outbound/held/00000000-0000-4000-8000-000000000000/release', {}))
        .statusCode,
    ).toBe(404);
  });
});
