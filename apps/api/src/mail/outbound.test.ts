import { eq, inArray } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { createMetrics, type Metrics } from '../lib/metrics.ts';
import { ManualClock } from '../test/clock.ts';
import { openTestDatabase } from '../test/database.ts';
import { createMailer } from './outbound.ts';
import { createOutboxRepo } from './outbox.repo.ts';

let database: Database;
let relay: SMTPServer;
let port: number;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
/** `moat_relay_errors_total` by kind. */
async function relayErrors(metrics: Metrics): Promise<Record<string, number>> {
  const { values } = await metrics.relayErrors.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.kind), v.value]));
}

beforeAll(async () => {
  database = await openTestDatabase();
  // A next hop that refuses every recipient for now (a temporary failure).
  relay = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onRcptTo: (_a, _s, cb) => cb(Object.assign(new Error('4.2.2 Mailbox full'), { responseCode: 452 })),
  });
  await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
  port = (relay.server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((r) => relay.close(() => r()));
  await database.close();
});

describe('outbound delivery', () => {
  it('queues a mail once per idempotency key', async () => {
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: undefined,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: new ManualClock(),
    });
    const mail = {
      tenantId: null,
      kind: 'test',
      to: 'a@b.test',
      fromName: 'x',
      subject: 's',
      text: 't',
      html: '',
      idempotencyKey: 'k-1',
    };
    const first = await mailer.send(mail);
    expect(await mailer.send(mail)).toBe(first);
    expect(await database.db.select().from(outbox).where(eq(outbox.idempotencyKey, 'k-1'))).toHaveLength(1);
  });

  it('keeps retrying through a 30-minute relay outage, counting waits from the last attempt, and drains when the relay returns', async () => {
    const clock = new ManualClock();
    let down = true;
    const flaky = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (_a, _s, cb) =>
        down ? cb(Object.assign(new Error('4.3.2 Relay down'), { responseCode: 451 })) : cb(),
      onData: (stream, _s, cb) => {
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => flaky.listen(0, '127.0.0.1', r));
    const flakyPort = (flaky.server.address() as { port: number }).port;
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: `smtp://127.0.0.1:${flakyPort}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock,
    });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push(
          await mailer.send({
            tenantId: null,
            kind: 'gateway_delivery',
            to: `user${i}@acme.test`,
            fromName: '',
            subject: `Outage ${i}`,
            text: '',
            html: '',
            raw: Buffer.from(`Subject: Outage ${i}\r\n\r\nHi\r\n`),
            envelopeFrom: 'bob@outside.test',
            idempotencyKey: `outage:${i}`,
          }),
        );
      }
      const rows = async () => database.db.select().from(outbox).where(inArray(outbox.id, ids));
      // The first attempts started in the background when the mail was stored.
      for (let i = 0; i < 100 && (await rows()).some((r) => r.status !== 'failed'); i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      // 30 minutes of outage, a pass every minute.
      for (let minute = 0; minute <= 30; minute++) {
        await mailer.drain();
        clock.advance(60_000);
      }
      const during = await rows();
      expect(during.map((r) => r.status)).toEqual(ids.map(() => 'failed'));
      // Waits grow from each attempt (30 s, 1, 2, 4, 8, 16 min …): a handful of attempts, not one a minute.
      for (const row of during) {
        expect(row.attempts).toBeGreaterThanOrEqual(5);
        expect(row.attempts).toBeLessThanOrEqual(8);
        expect(row.nextAttemptAt!.getTime()).toBeGreaterThan(clock.now().getTime() - 60_000);
      }
      expect(
        await database.db
          .select()
          .from(outbox)
          .where(inArray(outbox.kind, ['bounce', 'delay_notice'])),
      ).toHaveLength(0);
      down = false;
      clock.advance(60 * 60_000);
      await mailer.drain();
      expect((await rows()).map((r) => r.status)).toEqual(ids.map(() => 'sent'));
    } finally {
      await mailer.stop();
      await new Promise<void>((r) => flaky.close(() => r()));
    }
  });

  it('tells the sender once after 4 hours, and bounces only after the 5-day retry window', async () => {
    const clock = new ManualClock();
    const metrics = createMetrics({});
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: `smtp://127.0.0.1:${port}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock,
      metrics,
    });
    const id = await mailer.send({
      tenantId: null,
      kind: 'gateway_delivery',
      to: 'ana@acme.test',
      fromName: '',
      subject: 'Full mailbox',
      text: '',
      html: '',
      raw: Buffer.from('Subject: Full mailbox\r\n\r\nHi\r\n'),
      envelopeFrom: 'bob@outside.test',
      idempotencyKey: 'inbound-1:ana@acme.test',
    });
    const noticesOf = (key: string) =>
      database.db.select().from(outbox).where(eq(outbox.idempotencyKey, key));
    const statusOf = async () => (await database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!;
    // Every hour for 4 days and 23 hours: delayed, never bounced; one delay notice after 4 hours.
    for (let hour = 0; hour < 5 * 24 - 1; ) {
      await mailer.drain();
      if (hour === 3) expect(await noticesOf(`delay:${id}`)).toHaveLength(0);
      const step = Math.min(hour < 6 ? 1 : 11, 5 * 24 - 1 - hour);
      clock.advance(step * 3_600_000);
      hour += step;
    }
    await mailer.drain();
    expect((await statusOf()).status).toBe('failed');
    const [delay] = await noticesOf(`delay:${id}`);
    expect(delay).toMatchObject({ kind: 'delay_notice', toAddress: 'bob@outside.test', envelopeFrom: '' });
    expect(delay!.text).toContain('This is a warning only');
    clock.advance(2 * 3_600_000);
    await mailer.drain();
    const row = await statusOf();
    expect(row.status).toBe('bounced');
    expect(row.lastError).toContain('Mailbox full');
    const [bounce] = await noticesOf(`bounce:${id}`);
    expect(bounce).toMatchObject({ kind: 'bounce', toAddress: 'bob@outside.test', envelopeFrom: '' });
    expect(bounce!.text).toContain('could not be delivered after');
    // Every refused attempt counted as temporary (the relay refuses the notices too); a 4xx is never permanent.
    const errors = await relayErrors(metrics);
    expect(errors.temporary).toBeGreaterThanOrEqual(row.attempts);
    expect(errors.permanent).toBeUndefined();
    await mailer.stop();
  });

  it('bounces at once when the next hop refuses for good (5xx)', async () => {
    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onRcptTo: (_a, _s, cb) => cb(Object.assign(new Error('5.1.1 No such user'), { responseCode: 550 })),
    });
    await new Promise<void>((r) => refusing.listen(0, '127.0.0.1', r));
    const refusingPort = (refusing.server.address() as { port: number }).port;
    const metrics = createMetrics({});
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: `smtp://127.0.0.1:${refusingPort}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: new ManualClock(),
      metrics,
    });
    try {
      const id = await mailer.send({
        tenantId: null,
        kind: 'gateway_delivery',
        to: 'nobody@acme.test',
        fromName: '',
        subject: 'To nobody',
        text: '',
        html: '',
        raw: Buffer.from('Subject: To nobody\r\n\r\nHi\r\n'),
        envelopeFrom: 'bob@outside.test',
        idempotencyKey: 'inbound-2:nobody@acme.test',
      });
      const statusOf = async () =>
        (await database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.status;
      // One refused attempt, then the next pass bounces it (no back-off waits are needed).
      for (let i = 0; i < 50 && (await statusOf()) !== 'bounced'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        await mailer.drain();
      }
      const [row] = await database.db.select().from(outbox).where(eq(outbox.id, id));
      expect(row!.attempts).toBe(1);
      expect(row).toMatchObject({ status: 'bounced' });
      expect(row!.lastError).toContain('No such user');
      // The refusal counted as permanent (so may the bounce notice's, refused by the same next hop).
      const errors = await relayErrors(metrics);
      expect(Object.keys(errors)).toEqual(['permanent']);
      expect(errors.permanent).toBeGreaterThanOrEqual(1);
    } finally {
      await mailer.stop();
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });

  it('sends mail stored by a process without a relay (the CLI) from a node that has one', async () => {
    const sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData: (stream, _s, cb) => {
        stream.resume();
        stream.on('end', () => cb());
      },
    });
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const sinkPort = (sink.server.address() as { port: number }).port;
    const clock = new ManualClock();
    const cli = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: undefined,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock,
    });
    const server = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: `smtp://127.0.0.1:${sinkPort}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock,
    });
    try {
      const id = await cli.send({
        tenantId: null,
        kind: 'quarantine_notice',
        to: 'ana@acme.test',
        fromName: 'Moat',
        subject: 'Stored by the CLI',
        text: 'A message to you was held.',
        html: '',
      });
      const statusOf = async () =>
        (await database.db.select().from(outbox).where(eq(outbox.id, id)))[0]!.status;
      expect(await statusOf()).toBe('queued');
      await server.drain();
      expect(await statusOf()).toBe('sent');
    } finally {
      await server.stop();
      await new Promise<void>((r) => sink.close(() => r()));
    }
  });

  it('takes mail handed over from memory while its connections are busy, up to 16 per connection and 64 MiB', async () => {
    const mailer = createMailer({
      repo: createOutboxRepo(database.db),
      relayUrl: `smtp://127.0.0.1:${port}?maxConnections=2`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: new ManualClock(),
    });
    // Not started: a node that does not deliver yet takes nothing from memory.
    expect(mailer.reserve(1, 1_000)).toBe(false);
    await mailer.start({ intervalMs: 3_600_000 });
    try {
      const MiB = 1024 * 1024;
      // One message however big when nothing else is held.
      expect(mailer.reserve(1, 100 * MiB)).toBe(true);
      expect(mailer.reserve(1, 1_000)).toBe(false);
      mailer.release(1, 100 * MiB);
      // Within 64 MiB.
      expect(mailer.reserve(2, 30 * MiB)).toBe(true);
      expect(mailer.reserve(1, 5 * MiB)).toBe(false);
      expect(mailer.reserve(1, 4 * MiB)).toBe(true);
      mailer.release(2, 30 * MiB);
      mailer.release(1, 4 * MiB);
      // 16 per connection (2 here).
      expect(mailer.reserve(32, 1_000)).toBe(true);
      expect(mailer.reserve(1, 1_000)).toBe(false);
      mailer.release(32, 1_000);
      expect(mailer.reserve(1, 1_000)).toBe(true);
      mailer.release(1, 1_000);

      // Mail waiting in the table for a connection: new mail no longer goes ahead of it.
      expect(mailer.reserve(8, 1_000)).toBe(true);
      const waiting = await mailer.send({
        tenantId: null,
        kind: 'test',
        to: 'waits@b.test',
        fromName: 'Moat',
        subject: 'Waiting in the table',
        text: 'x',
        html: '',
      });
      expect(mailer.reserve(1, 1_000)).toBe(false);
      // The connections free up: the waiting mail is claimed first (this relay refuses it for now).
      mailer.release(8, 1_000);
      const claimed = async () =>
        (await database.db.select().from(outbox).where(eq(outbox.id, waiting)))[0]!.attempts > 0;
      for (let i = 0; i < 100 && !(await claimed()); i++) await new Promise((r) => setTimeout(r, 20));
      expect(await claimed()).toBe(true);
      expect(mailer.reserve(1, 1_000)).toBe(true);
      mailer.release(1, 1_000);
    } finally {
      await mailer.stop();
    }
  });
});
