/** What the benchmarks share: free ports, medians, a fresh PostgreSQL database. */
import pg from 'pg';
import { buildApp } from '../apps/api/src/app.ts';
import { loadConfig } from '../apps/api/src/config.ts';
import { type Database, openPostgres, rowsOf } from '../apps/api/src/db/client.ts';
import { systemClock } from '../apps/api/src/lib/clock.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { seedFirstTenant } from '../apps/api/src/seed.ts';
import { holdMessage } from '../apps/api/src/test/hold.ts';
import { freePort } from '../apps/api/src/test/ports.ts';
import { CHROMIUM_ARGS } from '../e2e/playwright.config.ts';

/** The PostgreSQL server the benchmarks create their databases on. */
export const PG_SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Debian's Chromium, launched as the e2e tests launch it (no browser is ever downloaded). */
export const CHROMIUM = '/usr/bin/chromium';
export { CHROMIUM_ARGS };

/** Moat's environment as `npm start` runs it in production, on loopback, for a benchmark. */
export async function productionEnv(o: { port: number; dataDir: string; secretKey: string }) {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(o.port),
    SMTP_PORT: String(await freePort()),
    SUBMISSION_PORT: '0',
    DATA_DIR: o.dataDir,
    SECRET_KEY: o.secretKey,
  };
}

export { freePort };

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A new, empty database named `prefix_<pid>_<time>` on the server; `drop()` throws it away. */
export async function freshPostgres(
  prefix: string,
  server = PG_SERVER_URL,
): Promise<{ url: string; open: () => Promise<Database>; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    open: () => openPostgres(url.toString()),
    async drop() {
      const dropper = new pg.Client({ connectionString: server });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}

/**
 * Every statement any node-postgres client sends from now on, as text (whitespace folded, 160
 * characters); `stop()` puts the driver back.
 */
export function recordStatements(): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text: string };
    seen.push((typeof q === 'string' ? q : q.text).replace(/\s+/g, ' ').slice(0, 160));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as never;
  return {
    seen,
    stop: () => {
      pg.Client.prototype.query = original;
    },
  };
}

/**
 * The first tenant and its admin (admin@bench.test), `messages` spam messages held for the admin,
 * and a signed-in session of the admin, on a migrated `database`; the app built on it, its
 * messages' links and the session's token.
 */
export async function seededApp(database: Database, dataDir: string, messages: number) {
  await database.migrate((db) =>
    seedFirstTenant(
      db,
      { adminEmail: 'admin@bench.test', adminPassword: 'bench password 1' },
      systemClock,
    ).then(() => {}),
  );
  const config = loadConfig({ NODE_ENV: 'production', DATA_DIR: dataDir, MAIL_FROM: 'moat@bench.test' });
  const app = await buildApp({ config, database, serverKey: ServerKey.inMemory(), logger: false });
  await app.ready();
  const links: string[] = [];
  for (let i = 0; i < messages; i++) {
    const raw = Buffer.from(
      `From: Sender ${i} <sender${i}@outside.example>\r\nTo: admin@bench.test\r\nSubject: Invoice ${i}\r\nMessage-ID: <bench-${i}@outside.example>\r\n\r\nHello ${i}\r\n`,
    );
    const held = await holdMessage(app, { raw, recipient: 'admin@bench.test', verdict: 'spam' });
    links.push(held.message.publicId);
  }
  const [admin] = rowsOf<{ id: string; tenant_id: string }>(
    await database.db.execute(`select id, tenant_id from users where email = 'admin@bench.test'` as never),
  );
  const { token } = await app.services.sessions.open(
    { id: admin!.id, tenantId: admin!.tenant_id },
    { ip: null, userAgent: 'bench', mfaVerified: true, loginReasonRequired: false },
  );
  return { app, links, token };
}
