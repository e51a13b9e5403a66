import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, inArray } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundMessages, outbox } from '../db/schema.ts';
import type { Engine } from '../engines/types.ts';
import { DEFAULT_WORK_LEASE_MS } from '../lib/lease-keeper.ts';
import { takeOverDataDir } from '../lib/node-name.ts';
import { buildTestApp } from '../test/app.ts';
import { ManualClock } from '../test/clock.ts';
import { buildTenant, buildUser } from '../test/factories.ts';
import { testSmtpIn } from '../test/gateway.ts';
import { createMailer } from './outbound.ts';
import { createOutboxRepo } from './outbox.repo.ts';

/**
 * Fail-over in seconds (issue 34): short leases renewed while the work lasts, a restarted node
 * taking back its previous run's work at once, and a stopping node handing back what it has
 * claimed and not started.
 */
const quiet = { info: () => {}, warn: () => {}, error: () => {} };
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

let t: Awaited<ReturnType<typeof buildTestApp>>;
/** The inbound messages of the processor's stop test. */
const stoppedIds: string[] = [];

beforeAll(async () => {
  t = await buildTestApp({
    dnsResolver: noDns as never,
    env: { SMTP_HOSTNAME: 'mx.moat.test', SMTP_PROCESSING_CONCURRENCY: '2' },
  });
});
afterAll(async () => {
  await t.close();
});

/** A relay that holds each message in DATA until `open()`, on one connection at a time. */
async function gatedRelay() {
  const received: string[] = [];
  let opened = false;
  const waiting: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const done = () => {
          received.push(Buffer.concat(chunks).toString('utf8'));
          callback();
        };
        if (opened) done();
        else waiting.push(done);
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as { port: number }).port;
  return {
    url: `smtp://127.0.0.1:${port}?maxConnections=1`,
    received,
    /** Messages the relay has read and not answered yet. */
    held: () => waiting.length,
    open() {
      opened = true;
      for (const done of waiting.splice(0)) done();
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const relayed = (i: number, prefix: string) => ({
  tenantId: null,
  kind: 'gateway_delivery',
  to: `user${i}@acme.test`,
  fromName: '',
  subject: `${prefix} ${i}`,
  text: '',
  html: '',
  raw: Buffer.from(`Subject: ${prefix} ${i}\r\n\r\nHi\r\n`),
  envelopeFrom: 'bob@outside.test',
  idempotencyKey: `${prefix}:${i}`,
});

async function until(check: () => boolean | Promise<boolean>, what: string) {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('fail-over', () => {
  it('leases last 30 seconds by default, renewed while the work lasts', () => {
    expect(DEFAULT_WORK_LEASE_MS).toBe(30_000);
    expect(t.app.config.workLeaseMs).toBe(30_000);
  });

  it('a stopping mailer hands back the mail waiting for a connection, due at once, and finishes the one in DATA', async () => {
    const relay = await gatedRelay();
    const repo = createOutboxRepo(t.db);
    const mailer = createMailer({
      repo,
      relayUrl: relay.url,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: new ManualClock(),
      nodeId: 'stopping-node',
    });
    try {
      await mailer.start({ intervalMs: 60_000 });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await mailer.send(relayed(i, 'Stop')));
      // One connection: the first mail is in DATA, three wait for the connection, all claimed.
      await until(() => relay.held() === 1, 'the first mail to reach DATA');
      const rows = () => t.db.select().from(outbox).where(inArray(outbox.id, ids));
      expect((await rows()).every((r) => r.status === 'sending' && r.leaseOwner === 'stopping-node')).toBe(
        true,
      );
      const stopping = mailer.stop();
      await until(async () => (await rows()).filter((r) => r.status === 'queued').length === 3, 'hand-back');
      relay.open();
      await stopping;
      const after = await rows();
      const sent = after.filter((r) => r.status === 'sent');
      const back = after.filter((r) => r.status === 'queued');
      expect(sent).toHaveLength(1);
      expect(relay.received).toHaveLength(1);
      // Handed back as they were: no lease, the attempt not counted, due now.
      expect(back).toHaveLength(3);
      for (const row of back) {
        expect(row.leaseOwner).toBeNull();
        expect(row.leaseUntil).toBeNull();
        expect(row.attempts).toBe(0);
        expect(row.nextAttemptAt).toBeNull();
        expect(row.lastError).toBeNull();
      }
    } finally {
      await relay.close();
    }
  });

  it("a restarted node takes back its previous run's mail at once, and leaves another node's alone", async () => {
    const relay = await gatedRelay();
    relay.open();
    const repo = createOutboxRepo(t.db);
    const future = new Date(Date.now() + 10 * 60_000);
    const [mine, theirs] = await t.db
      .insert(outbox)
      .values(
        ['old-run', 'live-node'].map((owner, i) => ({
          kind: 'gateway_delivery',
          fromName: '',
          toAddress: `user${i}@acme.test`,
          subject: `Restart ${owner}`,
          text: '',
          html: '',
          envelopeFrom: 'bob@outside.test',
          idempotencyKey: `restart:${owner}`,
          raw: Buffer.from(`Subject: Restart ${owner}\r\n\r\nHi\r\n`),
          status: 'sending',
          attempts: 1,
          leaseOwner: owner,
          leaseUntil: future,
        })),
      )
      .returning({ id: outbox.id });
    const mailer = createMailer({
      repo,
      relayUrl: relay.url,
      fromAddress: 'moat@m.test',
      log: quiet,
      clock: { now: () => new Date() },
      nodeId: 'new-run',
    });
    try {
      await mailer.start({ intervalMs: 60_000, previousNode: 'old-run' });
      await until(async () => {
        const [row] = await t.db.select().from(outbox).where(eq(outbox.id, mine!.id));
        return row!.status === 'sent';
      }, "the previous run's mail");
      const [other] = await t.db.select().from(outbox).where(eq(outbox.id, theirs!.id));
      expect(other!.status).toBe('sending');
      expect(other!.leaseOwner).toBe('live-node');
      expect(relay.received.join('\n')).toContain('Restart old-run');
      expect(relay.received.join('\n')).not.toContain('Restart live-node');
    } finally {
      await mailer.stop();
      await relay.close();
    }
  });

  it('a stopping processor finishes the messages in progress and hands back those waiting for a slot', async () => {
    const tenant = await buildTenant(t.db, { domain: 'stop.test' });
    await buildUser(t.db, tenant.id, { email: 'ana@stop.test' });
    const smtp = testSmtpIn({ db: t.db, clock: t.app.clock, log: t.app.log });
    const port = await smtp.listen(0, '127.0.0.1');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true, pool: true });
    const ids = stoppedIds;
    for (let i = 0; i < 8; i++) {
      const info = await transport.sendMail({
        from: 'bob@outside.test',
        to: 'ana@stop.test',
        subject: `Stop ${i}`,
        text: 'x',
      });
      ids.push(/queued as ([0-9a-f-]{36})/.exec(info.response)![1]!);
    }
    transport.close();
    await smtp.close();
    // An engine that holds every scan until the test lets it go.
    let scanning = 0;
    const gate: Array<() => void> = [];
    const engine: Engine = {
      name: 'gate',
      version: '1',
      status: 'on',
      failClosed: false,
      async scan() {
        scanning += 1;
        await new Promise<void>((resolve) => gate.push(resolve));
        return [];
      },
    };
    const engines = t.app.services.gateway.engines;
    engines.push(engine);
    const processor = t.app.services.gateway.processor;
    try {
      processor.start(60_000);
      // Two slots (SMTP_PROCESSING_CONCURRENCY 2): two in progress, six claimed and waiting.
      await until(() => scanning === 2, 'two scans');
      const rows = () => t.db.select().from(inboundMessages).where(inArray(inboundMessages.id, ids));
      expect((await rows()).filter((r) => r.leaseOwner !== null)).toHaveLength(8);
      const stopping = processor.stop();
      await until(async () => (await rows()).filter((r) => r.leaseOwner === null).length === 6, 'hand-back');
      for (const release of gate.splice(0)) release();
      await stopping;
      const after = await rows();
      expect(after.filter((r) => r.status === 'processed')).toHaveLength(2);
      const back = after.filter((r) => r.status === 'received');
      expect(back).toHaveLength(6);
      for (const row of back) {
        expect(row.leaseOwner).toBeNull();
        expect(row.leaseUntil).toBeNull();
        expect(row.attempts).toBe(0);
      }
      expect(scanning).toBe(2);
    } finally {
      engines.splice(engines.indexOf(engine), 1);
    }
    // Due at once: the next pass (this node's next start, or any other node) processes them.
    expect(await processor.drain()).toBe(6);
  });

  it("a restarted processor takes back its previous run's messages at once", async () => {
    const repo = t.app.services.gateway.processor;
    const row = { id: stoppedIds[0]! };
    await t.db
      .update(inboundMessages)
      .set({ status: 'received', leaseOwner: 'old-run', leaseUntil: new Date(Date.now() + 600_000) })
      .where(eq(inboundMessages.id, row!.id));
    expect(await repo.takeBack('other-run')).toBe(0);
    expect(await repo.takeBack('old-run')).toBe(1);
    const [after] = await t.db
      .select()
      .from(inboundMessages)
      .where(and(eq(inboundMessages.id, row!.id), eq(inboundMessages.status, 'received')));
    expect(after!.leaseOwner).toBeNull();
  });
});

describe('a node recognises its previous run on its data folder', () => {
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'moat-node-'));
  const write = (d: string, record: object) =>
    fs.writeFileSync(path.join(d, 'node.json'), JSON.stringify(record));

  it('first start: nothing to take back; the record names this node', () => {
    const d = dir();
    expect(takeOverDataDir(d, 'n:1')).toBeNull();
    expect(JSON.parse(fs.readFileSync(path.join(d, 'node.json'), 'utf8'))).toMatchObject({
      name: 'n:1',
      pid: process.pid,
      host: os.hostname(),
    });
    fs.rmSync(d, { recursive: true });
  });

  it('a previous run whose process is gone is taken over', () => {
    const d = dir();
    // A pid above the kernel's limit is never a live process.
    write(d, { name: 'n:old', pid: 2 ** 22 + 1, host: os.hostname() });
    expect(takeOverDataDir(d, 'n:new')).toBe('n:old');
    fs.rmSync(d, { recursive: true });
  });

  it('a previous record with this process’s own pid (a container restarted) is taken over', () => {
    const d = dir();
    write(d, { name: 'n:old', pid: process.pid, host: os.hostname() });
    expect(takeOverDataDir(d, 'n:new')).toBe('n:old');
    fs.rmSync(d, { recursive: true });
  });

  it('a process still running, another host or a damaged record: nothing is taken', () => {
    const d = dir();
    write(d, { name: 'n:live', pid: process.ppid, host: os.hostname() });
    expect(takeOverDataDir(d, 'n:new')).toBeNull();
    write(d, { name: 'n:far', pid: 2 ** 22 + 1, host: `${os.hostname()}-elsewhere` });
    expect(takeOverDataDir(d, 'n:new')).toBeNull();
    fs.writeFileSync(path.join(d, 'node.json'), '{not json');
    expect(takeOverDataDir(d, 'n:new')).toBeNull();
    fs.rmSync(d, { recursive: true });
  });
});
