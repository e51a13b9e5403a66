/** What the benchmarks share: free ports, medians, a fresh PostgreSQL database. */
import net from 'node:net';
import pg from 'pg';
import { type Database, openPostgres } from '../apps/api/src/db/client.ts';

/** The PostgreSQL server the benchmarks create their databases on. */
export const PG_SERVER_URL =
  process.env.BENCH_DATABASE_URL ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

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
