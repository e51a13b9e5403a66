import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.ts';
import { outbox } from '../db/schema.ts';
import { ManualClock } from '../test/clock.ts';
import { openTestDatabase } from '../test/database.ts';
import { createMailer } from './outbound.ts';

let database: Database;
let relay: SMTPServer;
let port: number;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

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
      db: database.db,
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

  it('retries with growing waits and, after the last attempt, bounces to the original sender', async () => {
    const clock = new ManualClock();
    const mailer = createMailer({
      db: database.db,
      relayUrl: `smtp://127.0.0.1:${port}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock,
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
    for (let i = 0; i < 12; i++) {
      await new Promise((r) => setTimeout(r, 50));
      await mailer.drain();
      clock.advance(15 * 60_000);
    }
    const [row] = await database.db.select().from(outbox).where(eq(outbox.id, id));
    expect(row).toMatchObject({ status: 'bounced', attempts: 8 });
    expect(row!.lastError).toContain('Mailbox full');
    const [bounce] = await database.db
      .select()
      .from(outbox)
      .where(eq(outbox.idempotencyKey, `bounce:${id}`));
    expect(bounce).toMatchObject({ kind: 'bounce', toAddress: 'bob@outside.test', envelopeFrom: '' });
    expect(bounce!.text).toContain('could not be delivered after 8 attempts');
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
    const mailer = createMailer({
      db: database.db,
      relayUrl: `smtp://127.0.0.1:${refusingPort}?pool=false`,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: new ManualClock(),
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
      expect(row!.attempts).toBe(8);
      expect(row).toMatchObject({ status: 'bounced' });
      expect(row!.lastError).toContain('No such user');
    } finally {
      await mailer.stop();
      await new Promise<void>((r) => refusing.close(() => r()));
    }
  });
});
