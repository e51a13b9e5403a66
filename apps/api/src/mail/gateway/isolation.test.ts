import net from 'node:net';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, mailLog, outbox, quarantineMessages, securityEvents } from '../../db/schema.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { ManualClock } from '../../test/clock.ts';
import { buildSession, buildTenant, buildUser } from '../../test/factories.ts';
import { beforeInsertFault } from '../../test/faults.ts';
import { testSmtpIn } from '../../test/gateway.ts';
import { createInboundRepo } from './inbound.repo.ts';
import { DEFAULT_LEASE_MS, MAX_PROCESSING_ATTEMPTS, processingRetryDelayMs } from './processor.ts';

/** DNS for tests: no records anywhere, answered at once. */
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

const clock = new ManualClock();
let t: Awaited<ReturnType<typeof buildTestApp>>;
let smtp: ReturnType<typeof testSmtpIn>;
let port: number;
let tenantId: string;

beforeAll(async () => {
  t = await buildTestApp({ clock, dnsResolver: noDns as never, env: { SMTP_HOSTNAME: 'mx.moat.test' } });
  const tenant = await buildTenant(t.db, { domain: 'iso.test' });
  tenantId = tenant.id;
  await buildUser(t.db, tenant.id, { email: 'ana@iso.test' });
  smtp = testSmtpIn(
    { db: t.db, clock, log: t.app.log },
    { maxMessageBytes: 5_000_000, maxMessagesPerMinute: 100_000 },
  );
  port = await smtp.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await smtp.close();
  await t.close();
});

/**
 * One SMTP transaction with exactly these message bytes (dot-stuffed); the final reply, and the
 * queue id when it was accepted.
 */
function sendRaw(
  message: Buffer,
  rcpts: string[] = ['ana@iso.test'],
): Promise<{ reply: string; id: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const steps = [
      'EHLO client.test',
      'MAIL FROM:<bob@outside.test>',
      ...rcpts.map((r) => `RCPT TO:<${r}>`),
      'DATA',
    ];
    let buffer = '';
    let step = 0;
    let last = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      while (/^\d{3} .*\r\n/m.test(buffer)) {
        const end = buffer.search(/^\d{3} .*\r\n/m);
        const lineEnd = buffer.indexOf('\r\n', end) + 2;
        const line = buffer.slice(end, lineEnd).trim();
        buffer = buffer.slice(lineEnd);
        if (step === 99) continue; // QUIT sent: its 221 is not the answer we report.
        last = line;
        if (step < steps.length) {
          if (step > 0 && !/^[23]/.test(last)) {
            socket.end('QUIT\r\n');
            step = 99;
            continue;
          }
          socket.write(`${steps[step]}\r\n`);
          step += 1;
        } else if (step === steps.length) {
          const stuffed = message.toString('latin1').replace(/(^|\r\n)\./g, '$1..');
          socket.write(Buffer.from(`${stuffed}${stuffed.endsWith('\r\n') ? '' : '\r\n'}.\r\n`, 'latin1'));
          step += 1;
        } else {
          socket.end('QUIT\r\n');
          step = 99;
        }
      }
    });
    socket.on('close', () =>
      resolve({ reply: last, id: /queued as ([0-9a-f-]{36})/.exec(last)?.[1] ?? null }),
    );
    socket.on('error', reject);
  });
}

const mail = (subject: string, extra = '') =>
  Buffer.from(
    `From: Bob <bob@outside.test>\r\nTo: ana@iso.test\r\nSubject: ${subject}\r\n${extra}Date: ${new Date().toUTCString()}\r\n\r\nHello\r\n`,
    'latin1',
  );

async function deliveriesOf(subject: string) {
  return t.db
    .select({ id: outbox.id, kind: outbox.kind })
    .from(outbox)
    .where(
      and(eq(outbox.subject, subject), inArray(outbox.kind, ['gateway_delivery', 'gateway_delivery_warned'])),
    );
}

describe('bad messages are refused at the door', () => {
  it('refuses a NUL byte in a header with 554 at end of DATA, and the next clean message is delivered', async () => {
    const nul = await sendRaw(
      Buffer.concat([Buffer.from('Subject: x '), Buffer.from([0, 0xff]), mail('rest')]),
    );
    expect(nul.reply).toMatch(/^554 5\.6\.0 .*NUL/);
    expect(nul.id).toBeNull();
    const clean = await sendRaw(mail('Clean after NUL'));
    expect(clean.reply).toMatch(/^250 /);
    await t.app.services.gateway.processor.drain();
    expect(await deliveriesOf('Clean after NUL')).toHaveLength(1);
  });

  it('refuses a 1 MB header line, and a header line over 998 characters, at end of DATA', async () => {
    const huge = await sendRaw(mail('Huge header', `X-Long: ${'a'.repeat(1_048_576)}\r\n`));
    expect(huge.reply).toMatch(/^55[24] /);
    const long = await sendRaw(mail('Long header', `X-Long: ${'a'.repeat(995)}\r\n`));
    expect(long.reply).toMatch(/^554 5\.6\.0 .*998/);
    const fits = await sendRaw(mail('Header that fits', `X-Long: ${'a'.repeat(990)}\r\n`));
    expect(fits.reply).toMatch(/^250 /);
    const before = await t.db.select({ id: inboundMessages.id }).from(inboundMessages);
    expect(before.length).toBeGreaterThan(0);
    await t.app.services.gateway.processor.drain();
    expect(await deliveriesOf('Header that fits')).toHaveLength(1);
  });

  it('refuses 20,000 header fields and multiparts nested 100 deep', async () => {
    const many = await sendRaw(mail('Many headers', 'X-H: 1\r\n'.repeat(20_000)));
    expect(many.reply).toMatch(/^552 /);
    let body = 'innermost\r\n';
    for (let depth = 100; depth > 0; depth--) {
      body = `Content-Type: multipart/mixed; boundary="b${depth}"\r\n\r\n--b${depth}\r\n${body}\r\n--b${depth}--\r\n`;
    }
    const nested = await sendRaw(
      Buffer.from(`From: bob@outside.test\r\nSubject: Deep\r\nMIME-Version: 1.0\r\n${body}`),
    );
    expect(nested.reply).toMatch(/^55\d /);
  });
});

describe('a message whose processing fails', () => {
  it('is retried with back-off, never holds up other mail, then is parked failed and held with an event', async () => {
    // A fault on every pass for this one message (as a bug or a broken dependency would cause):
    // the database refuses to queue its delivery.
    const removeFault = await beforeInsertFault(
      t.db,
      'poison_outbox',
      'outbox',
      "if new.subject = 'Poison' then raise exception 'outbox insert failed: simulated'; end if;",
    );
    let poisonId = '';
    try {
      const poison = await sendRaw(mail('Poison'));
      expect(poison.reply).toMatch(/^250 /);
      poisonId = poison.id!;
      await sendRaw(mail('Clean behind poison'));
      await t.app.services.gateway.processor.drain();
      // The clean message went through; the poisoned one waits out its back-off.
      expect(await deliveriesOf('Clean behind poison')).toHaveLength(1);
      const [first] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, poison.id!));
      expect(first).toMatchObject({ status: 'received', attempts: 1, leaseOwner: null });
      expect(first!.lastError).toContain('simulated');
      expect(first!.nextAttemptAt!.getTime()).toBe(clock.now().getTime() + processingRetryDelayMs(1));

      for (let attempt = 1; attempt < MAX_PROCESSING_ATTEMPTS; attempt++) {
        // Not due before its wait is over.
        await t.app.services.gateway.processor.drain();
        const [row] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, poison.id!));
        expect(row!.attempts).toBe(attempt);
        clock.advance(processingRetryDelayMs(attempt));
        await t.app.services.gateway.processor.drain();
      }
      const [parked] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, poison.id!));
      expect(parked).toMatchObject({ status: 'failed', attempts: MAX_PROCESSING_ATTEMPTS });
      expect(Buffer.from(parked!.raw).length).toBeGreaterThan(0);
      const [held] = await t.db
        .select()
        .from(quarantineMessages)
        .where(eq(quarantineMessages.failedInboundId, poison.id!));
      expect(held).toMatchObject({
        recipient: 'ana@iso.test',
        sender: 'bob@outside.test',
        subject: 'Poison',
        state: 'quarantined',
        verdict: 'suspicious',
        silent: true,
      });
      expect(held!.reasons[0]).toContain('Could not be processed after 5 attempts');
      const events = await t.db.select().from(securityEvents).where(eq(securityEvents.messageId, held!.id));
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ engine: 'gateway', severity: 'high' });
      const [logged] = await t.db.select().from(mailLog).where(eq(mailLog.inboundId, poison.id!));
      expect(logged).toMatchObject({ action: 'failed', quarantineMessageId: held!.id });
      expect(await deliveriesOf('Poison')).toHaveLength(0);
    } finally {
      await removeFault();
    }

    // The admin sees it with its error, and processes it again once the fault is gone.
    const admin = await buildUser(t.db, tenantId, { role: 'admin', email: 'boss@iso.test' });
    const { token } = await buildSession(t.db, admin);
    const cookies = { [SESSION_COOKIE]: token };
    const list = await t.app.inject({ method: 'GET', url: '/api/v1/quarantine/messages?q=Poison', cookies });
    expect(list.statusCode).toBe(200);
    const [item] = list.json().items;
    expect(item).toMatchObject({ subject: 'Poison', processing_failed: true, state: 'quarantined' });
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/v1/quarantine/messages/${item.id}`,
      cookies,
    });
    expect(detail.statusCode).toBe(200);
    const explorer = await t.app.inject({
      method: 'GET',
      url: '/api/v1/mail_explorer?action=failed',
      cookies,
    });
    expect(explorer.json().items.map((i: { subject: string }) => i.subject)).toContain('Poison');

    const retry = () =>
      t.app.inject({
        method: 'POST',
        url: `/api/v1/quarantine/messages/${item.id}/retry`,
        cookies,
        headers: CSRF,
      });
    expect((await retry()).statusCode).toBe(200);
    // The retry woke the processor; wait for that pass, then make sure nothing is left.
    await t.app.services.gateway.processor.stop();
    await t.app.services.gateway.processor.drain();
    expect(await deliveriesOf('Poison')).toHaveLength(1);
    const [done] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, poisonId));
    expect(done).toMatchObject({ status: 'processed' });
    const [after] = await t.db.select().from(mailLog).where(eq(mailLog.subject, 'Poison'));
    expect(after!.action).toBe('delivered');
    // The parked copy is gone; a second retry has nothing to retry.
    expect((await retry()).statusCode).toBe(404);
  });

  it("holds a parked message sent to two organisations for each; neither can withdraw the other's copy by a retry", async () => {
    const other = await buildTenant(t.db, { domain: 'iso-two.test' });
    const repo = createInboundRepo(t.db);
    const { id } = await sendRaw(
      Buffer.from(
        'From: bob@outside.test\r\nTo: ana@iso.test, bo@iso-two.test\r\nSubject: Two tenants\r\nAuthentication-Results: mx.moat.test; dmarc=pass\r\n\r\nHi\r\n',
      ),
      ['ana@iso.test', 'bo@iso-two.test'],
    );
    for (let i = 0; i < MAX_PROCESSING_ATTEMPTS; i++) {
      const now = clock.now();
      await repo.claim(`dead-node-${i}`, now, new Date(now.getTime() + DEFAULT_LEASE_MS), 50);
      clock.advance(DEFAULT_LEASE_MS + 1);
    }
    await t.app.services.gateway.processor.drain();
    const copies = await t.db
      .select()
      .from(quarantineMessages)
      .where(eq(quarantineMessages.failedInboundId, id!));
    expect(copies.map((c) => c.tenantId).sort()).toEqual([tenantId, other.id].sort());
    // The held bytes carry no Authentication-Results the sender wrote in the gateway's name.
    for (const copy of copies)
      expect(Buffer.from(copy.raw).toString()).not.toContain('Authentication-Results');
    const admin = await buildUser(t.db, tenantId, { role: 'admin', email: 'second@iso.test' });
    // A session of the test clock's time (it has moved on by hours in this file).
    const { token } = await buildSession(t.db, admin, {
      createdAt: clock.now(),
      lastSeenAt: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 3_600_000),
    });
    const mine = copies.find((c) => c.tenantId === tenantId)!;
    const retried = await t.app.inject({
      method: 'POST',
      url: `/api/v1/quarantine/messages/${mine.id}/retry`,
      cookies: { [SESSION_COOKIE]: token },
      headers: CSRF,
    });
    expect(retried.json()).toMatchObject({ code: 'conflict' });
    expect(retried.statusCode).toBe(409);
    expect(
      await t.db.select().from(quarantineMessages).where(eq(quarantineMessages.failedInboundId, id!)),
    ).toHaveLength(2);
  });

  it('parks a message that was claimed again and again without ever finishing (a pass that kills its node)', async () => {
    const repo = createInboundRepo(t.db);
    const { id } = await sendRaw(mail('Kills its node'));
    // Nodes that claim it and die: each claim counts as an attempt; the lease runs out each time.
    for (let i = 0; i < MAX_PROCESSING_ATTEMPTS; i++) {
      const now = clock.now();
      const claimed = await repo.claim(`dead-node-${i}`, now, new Date(now.getTime() + DEFAULT_LEASE_MS), 50);
      expect(claimed).toContain(id);
      clock.advance(DEFAULT_LEASE_MS + 1);
    }
    await t.app.services.gateway.processor.drain();
    const [row] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, id!));
    expect(row!.status).toBe('failed');
    expect(row!.lastError).toContain('did not finish');
    expect(await deliveriesOf('Kills its node')).toHaveLength(0);
  });
});

describe('several nodes on one database', () => {
  it('never processes one message twice; a live lease is respected and an expired one taken over', async () => {
    const other = await buildTestApp({
      clock,
      database: t.database,
      serverKey: t.serverKey,
      dnsResolver: noDns as never,
      env: { SMTP_HOSTNAME: 'mx.moat.test' },
    });
    try {
      const subjects = Array.from({ length: 12 }, (_, i) => `Shared ${i}`);
      for (const subject of subjects) await sendRaw(mail(subject));
      // Both nodes drain at once.
      await Promise.all([
        t.app.services.gateway.processor.drain(),
        other.app.services.gateway.processor.drain(),
      ]);
      for (const subject of subjects) expect(await deliveriesOf(subject)).toHaveLength(1);
      const logged = await t.db.select().from(mailLog).where(inArray(mailLog.subject, subjects));
      expect(logged).toHaveLength(subjects.length);

      // A node claims a message and stops answering: the others leave it until the lease expires.
      const { id } = await sendRaw(mail('Leased elsewhere'));
      const now = clock.now();
      await createInboundRepo(t.db).claim(
        'stalled-node',
        now,
        new Date(now.getTime() + DEFAULT_LEASE_MS),
        50,
      );
      await other.app.services.gateway.processor.drain();
      expect(await deliveriesOf('Leased elsewhere')).toHaveLength(0);
      clock.advance(DEFAULT_LEASE_MS + 1);
      await other.app.services.gateway.processor.drain();
      expect(await deliveriesOf('Leased elsewhere')).toHaveLength(1);
      const [row] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, id!));
      expect(row).toMatchObject({ status: 'processed', leaseOwner: null });
    } finally {
      await other.app.close();
    }
  });
});
