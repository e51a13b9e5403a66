import { eq, inArray } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, mailLog, outbox } from '../../db/schema.ts';
import { buildTestApp } from '../../test/app.ts';
import { buildTenant, buildUser } from '../../test/factories.ts';
import { beforeInsertFault } from '../../test/faults.ts';
import { startRunningGateway, until } from '../../test/gateway.ts';
import type { SmtpIn } from './smtp-in.ts';

/** DNS for tests: no records anywhere, answered at once. */
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

/** The next hop: what arrives, by subject. */
const arrived = new Map<string, number>();
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const subject = /^Subject: (.*)$/im.exec(Buffer.concat(chunks).toString())?.[1]?.trim() ?? '';
      arrived.set(subject, (arrived.get(subject) ?? 0) + 1);
      callback();
    });
  },
});

let t: Awaited<ReturnType<typeof buildTestApp>>;
let door: SmtpIn;
let port: number;

beforeAll(async () => {
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const sinkPort = (sink.server.address() as { port: number }).port;
  t = await buildTestApp({
    dnsResolver: noDns as never,
    env: {
      SMTP_HOSTNAME: 'mx.moat.test',
      SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
      SMTP_PROCESSING_CONCURRENCY: '2',
    },
  });
  const tenant = await buildTenant(t.db, { domain: 'intake.test' });
  await buildUser(t.db, tenant.id, { email: 'ana@intake.test' });
  ({ door, port } = await startRunningGateway(t));
});
afterAll(async () => {
  await door.close();
  await t.close();
  await new Promise<void>((resolve) => sink.close(() => resolve()));
});

describe('a running node takes mail in as it is stored', () => {
  it('processes and relays a burst from several connections once each, a message the database refuses failing alone', async () => {
    // The database refuses to queue one message's delivery (as a bug or a broken dependency would).
    const removeFault = await beforeInsertFault(
      t.db,
      'poison_intake',
      'outbox',
      `if new.subject = 'Burst poison' then raise exception 'outbox insert failed: simulated'; end if;
       -- The first message's finish is slow: the next ones gather and are finished together.
       if new.subject = 'Burst slow' then perform pg_sleep(0.4); end if;`,
    );
    try {
      const subjects = Array.from({ length: 40 }, (_, i) =>
        i === 0 ? 'Burst slow' : i === 1 ? 'Burst poison' : `Burst ${i}`,
      );
      // Four connections at once, more messages than the node has slots and room for (2 + 32): some
      // are taken in claimed, the rest wait in the table for a pass.
      const transports = Array.from({ length: 4 }, () =>
        nodemailer.createTransport({
          host: '127.0.0.1',
          port,
          ignoreTLS: true,
          pool: true,
          maxConnections: 1,
        }),
      );
      const ids = await Promise.all(
        subjects.map(async (subject, i) => {
          const info = await transports[i % 4]!.sendMail({
            from: 'bob@outside.test',
            to: 'ana@intake.test',
            subject,
            text: `Message ${i}`,
          });
          return /queued as ([0-9a-f-]{36})/.exec(info.response)![1]!;
        }),
      );
      for (const transport of transports) transport.close();
      expect(new Set(ids).size).toBe(40);

      const clean = subjects.filter((s) => s !== 'Burst poison');
      await until(async () => {
        const sent = await t.db.select({ id: outbox.id }).from(outbox).where(eq(outbox.status, 'sent'));
        return clean.every((s) => arrived.get(s) === 1) && sent.length >= clean.length;
      });
      // Each clean message relayed once, claimed once, and its Mail Explorer row written once.
      expect(clean.map((s) => arrived.get(s))).toEqual(clean.map(() => 1));
      expect(arrived.has('Burst poison')).toBe(false);
      const inbound = await t.db
        .select({
          id: inboundMessages.id,
          status: inboundMessages.status,
          attempts: inboundMessages.attempts,
        })
        .from(inboundMessages)
        .where(inArray(inboundMessages.id, ids));
      const poisonId = ids[1]!;
      expect(
        inbound.filter((r) => r.id !== poisonId).every((r) => r.status === 'processed' && r.attempts === 1),
      ).toBe(true);
      const [poison] = await t.db.select().from(inboundMessages).where(eq(inboundMessages.id, poisonId));
      expect(poison).toMatchObject({ status: 'received', attempts: 1, leaseOwner: null });
      expect(poison!.lastError).toContain('simulated');
      const logged = await t.db
        .select({ inboundId: mailLog.inboundId })
        .from(mailLog)
        .where(inArray(mailLog.inboundId, ids));
      expect(logged).toHaveLength(39);
      const mails = await t.db
        .select({ status: outbox.status, attempts: outbox.attempts, leaseOwner: outbox.leaseOwner })
        .from(outbox)
        .where(eq(outbox.kind, 'gateway_delivery'));
      expect(mails).toHaveLength(39);
      expect(mails.every((m) => m.status === 'sent' && m.attempts === 1 && m.leaseOwner === null)).toBe(true);
    } finally {
      await removeFault();
    }
  });
});
