/**
 * The SQL statements one gateway message costs on PostgreSQL, through the whole pipeline: SMTP in
 * (recipient check, counters, durable insert), the processor (claim, load, tenant, lists, people,
 * policy, per-message transaction) and the relay to a sink (outbox claim and mark). Prints each
 * statement of a clean message, then of a message with a malware verdict (held, recipient told),
 * each after a warm-up message of the same kind (so caches are as they are under load).
 *
 * BENCH_PG_URL: the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres); a
 * fresh database is created and dropped. The tenant has BENCH_USERS (200) people and
 * BENCH_SENDERS (500) sender-list entries, so loading them whole would show.
 */
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { openPostgres } from '../apps/api/src/db/client.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { createInboundRepo } from '../apps/api/src/mail/gateway/inbound.repo.ts';
import { createRecipientVerifier } from '../apps/api/src/mail/gateway/recipient-verify.ts';
import { createSmtpIn } from '../apps/api/src/mail/gateway/smtp-in.ts';
import { createTenantsRepo } from '../apps/api/src/modules/tenants/tenants.repo.ts';
import { seedFirstTenant } from '../apps/api/src/seed.ts';

const SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const USERS = Number(process.env.BENCH_USERS ?? 200);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 500);
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const name = `moat_bench_gwqc_${process.pid}`;
const admin = new pg.Client({ connectionString: SERVER_URL });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(SERVER_URL);
url.pathname = `/${name}`;
const database = await openPostgres(url.toString());

let arrived = 0;
const sink = new SMTPServer({
  authOptional: true,
  disabledCommands: ['AUTH', 'STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      arrived += 1;
      callback();
    });
  },
});
const sinkPort = await freePort();
await new Promise<void>((resolve) => sink.listen(sinkPort, '127.0.0.1', resolve));

try {
  await database.migrate((db) =>
    seedFirstTenant(
      db,
      { adminEmail: 'admin@acme.test', adminPassword: 'bench password 1' },
      systemClock,
    ).then(() => {}),
  );
  await database.db.execute(
    `insert into users (tenant_id, email, first_name, last_name, role, status)
     select t.id, 'user' || g || '@acme.test', 'First' || g, 'Last' || g, 'user', 'active'
     from tenants t, generate_series(0, ${USERS - 1}) g` as never,
  );
  await database.db.execute(
    `insert into sender_lists (tenant_id, list, value)
     select t.id, case when g % 2 = 0 then 'allow' else 'block' end, 'sender' || g || '.example'
     from tenants t, generate_series(0, ${SENDERS - 1}) g` as never,
  );
  const config = loadConfig({
    NODE_ENV: 'production',
    DATA_DIR: path.join(os.tmpdir(), 'moat-gwqc'),
    SMTP_RELAY_URL: `smtp://127.0.0.1:${sinkPort}`,
    SMTP_HOSTNAME: 'mx.moat.test',
  });
  const noDns = async () => {
    throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  };
  const app = await buildApp({
    config,
    database,
    serverKey: ServerKey.inMemory(),
    logger: process.env.BENCH_LOG ? { level: 'warn' } : false,
    dnsResolver: noDns,
  });
  await app.ready();
  const processor = app.services.gateway.processor;
  const smtp = createSmtpIn({
    inbound: createInboundRepo(database.db),
    tenants: createTenantsRepo(database.db),
    clock: app.clock,
    log: app.log,
    counters: app.services.counters,
    verifyRecipient: createRecipientVerifier({
      tenants: createTenantsRepo(database.db),
      clock: app.clock,
      log: app.log,
      relayUrl: undefined,
      heloName: 'mx.moat.test',
    }).check,
    options: {
      hostname: 'mx.moat.test',
      maxMessageBytes: 10_000_000,
      maxRecipients: 100,
      maxConnectionsPerIp: 100,
      maxMessagesPerMinute: 100_000,
      tls: undefined,
    },
    onStored: () => processor.kick(),
  });
  const smtpPort = await smtp.listen(0, '127.0.0.1');

  const seen: string[] = [];
  let counting = false;
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    if (counting) seen.push((typeof q === 'string' ? q : q.text).replace(/\s+/g, ' ').slice(0, 200));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never;

  const send = async (i: number, malware: boolean) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, ignoreTLS: true });
    const before = arrived;
    await transport.sendMail({
      from: 'Bob <bob@outside.test>',
      to: `user${i}@acme.test`,
      subject: `Count ${i}`,
      text: 'Hello, this is a message.',
      ...(malware ? { attachments: [{ filename: 'eicar.txt', content: EICAR }] } : {}),
    });
    transport.close();
    // Delivered (or, held, the recipient told); then the outbox marks it sent.
    while (arrived === before) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 300));
  };

  const report: Record<string, number> = {};
  for (const [label, malware] of [
    ['clean', false],
    ['malware', true],
  ] as const) {
    await send(1, malware);
    seen.length = 0;
    counting = true;
    await send(2, malware);
    counting = false;
    report[label] = seen.length;
    console.log(`${label} message: ${seen.length} statements`);
    for (const s of seen) console.log(`  ${s}`);
  }
  console.log(JSON.stringify({ statements_per_message: report }));
  await smtp.close();
  await app.close();
} finally {
  await new Promise<void>((r) => sink.close(() => r()));
  await database.close();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
