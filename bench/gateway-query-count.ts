import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { seedFirstTenant } from '../apps/api/src/seed.ts';
import { freePort, freshPostgres, recordStatements } from './support.ts';

const SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const USERS = Number(process.env.BENCH_USERS ?? 200);
const SENDERS = Number(process.env.BENCH_SENDERS ?? 500);
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

// Recording starts before the pool exists: its clients keep the driver's query as it was then.
const { seen } = recordStatements();
const fresh = await freshPostgres('moat_bench_gwqc', SERVER_URL);
const database = await fresh.open();

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
    SMTP_MAX_CONNECTIONS_PER_IP: '100',
    SMTP_MAX_MESSAGES_PER_MINUTE: '100000',
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
  const _processor = app.services.gateway.processor;
  const smtp = app.services.gateway.frontDoor();
  const smtpPort = await smtp.listen(0, '127.0.0.1');

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
    // The second message from bob@outside.test: its sender history (anti-phishing, issue 35) is
    // one statement here (a clean message: 12 with it, 11 before); a sender with 50 earlier
    // messages from its address and its domain is remembered and costs none.
    await send(2, malware);
    const statements = [...seen];
    report[label] = statements.length;
    console.log(`${label} message: ${statements.length} statements`);
    for (const s of statements) console.log(`  ${s}`);
  }
  console.log(JSON.stringify({ statements_per_message: report }));
  await smtp.close();
  await app.close();
} finally {
  await new Promise<void>((r) => sink.close(() => r()));
  await database.close();
  await fresh.drop();
}
