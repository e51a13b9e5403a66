import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import { createKeyedMutex } from '../lib/keyed-mutex.ts';
import { RemotePglite } from './pglite-remote.ts';
import * as schema from './schema.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction or the database itself: repositories take either (`tx ?? db`). */
export type DbOrTx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute' | 'transaction'>;

export interface Database {
  readonly db: Db;
  readonly kind: 'pglite' | 'postgres';
  /** Apply pending migrations, then run `afterMigrate` while holding the same cross-process lock. */
  migrate(afterMigrate?: (db: Db) => Promise<void>): Promise<void>;
  /** Whether every migration shipped with this build is applied. */
  migrationsApplied(): Promise<boolean>;
  ping(): Promise<void>;
  /**
   * Run `task` holding the lock `key` for every node of this database (a PostgreSQL advisory
   * lock; with the embedded database, one process, an in-process lock): callers take turns.
   */
  withLock<T>(key: string, task: () => Promise<T>): Promise<T>;
  /**
   * Run `task` only if no node holds `key` now (singleton jobs: digests, sweeps); resolves to
   * false, without running it, when another node does.
   */
  tryLock(key: string, task: () => Promise<unknown>): Promise<boolean>;
  /**
   * Hear the database's change notices (channel `moat_changes`, migration 0011): `onChange`
   * gets each payload; `onLost` is called whenever notices may have been missed (the listening
   * connection broke) and again once they are heard anew, so caches forget everything.
   * Resolves to `listening()`: whether notices are being heard right now.
   */
  listen(onChange: (payload: string) => void, onLost: () => void): Promise<() => boolean>;
  close(): Promise<void>;
}

export const CHANGES_CHANNEL = 'moat_changes';

/** The in-process form of both locks (the embedded database belongs to one process). */
function processLocks(): Pick<Database, 'withLock' | 'tryLock'> {
  const mutex = createKeyedMutex();
  const held = new Set<string>();
  return {
    withLock: mutex,
    async tryLock(key, task) {
      if (held.has(key)) return false;
      held.add(key);
      try {
        await task();
        return true;
      } finally {
        held.delete(key);
      }
    },
  };
}

export const MIGRATIONS_DIR = path.join(import.meta.dirname, 'migrations');
/** Any fixed number: the advisory lock that serialises migrations and first-start seeding. */
export const MIGRATION_LOCK_KEY = 746_921_337;

function shippedMigrationCount(): number {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: unknown[];
  };
  return journal.entries.length;
}

async function appliedMigrationCount(db: Db): Promise<number> {
  try {
    const [row] = rowsOf<{ n: number }>(
      await db.execute(sql`select count(*)::int as n from drizzle.__drizzle_migrations`),
    );
    return Number(row?.n ?? 0);
  } catch {
    return 0;
  }
}

export interface PgliteDatabase extends Database {
  /** The whole data directory as a tarball (`openPglite`'s `loadDataDir` starts from one). */
  dumpDataDir(): Promise<Blob>;
}

/**
 * The embedded PostgreSQL (PGlite): stored under `dataDir`, or in memory when `dataDir` is null;
 * `loadDataDir` starts it from a dump instead of an empty cluster.
 */
export async function openPglite(
  dataDir: string | null,
  options: { loadDataDir?: Blob } = {},
): Promise<PgliteDatabase> {
  if (dataDir) fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // In a worker thread: its statements never hold the event loop (pglite-worker.mjs). pg_trgm
  // backs the quick search's substring indexes (migration 0006).
  const client = await RemotePglite.create({
    dataDir,
    // PostgreSQL's 128 MB default of shared buffers sits in the process's own memory here; the
    // embedded database serves one small installation, and the operating system caches its files.
    postgresqlconf: ['shared_buffers=16MB'],
    ...(options.loadDataDir ? { loadDataDir: new Uint8Array(await options.loadDataDir.arrayBuffer()) } : {}),
  });
  const db = drizzlePglite({ client: client as unknown as PGlite, schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    async migrate(afterMigrate) {
      // PGlite belongs to this one process (see data-dir-lock.ts), so no cross-process lock is needed.
      await migratePglite(db as never, { migrationsFolder: MIGRATIONS_DIR });
      if (afterMigrate) await afterMigrate(db);
    },
    migrationsApplied: async () => (await appliedMigrationCount(db)) >= shippedMigrationCount(),
    ping: async () => {
      await client.query('select 1');
    },
    ...processLocks(),
    // One process, one database: a notice arrives before the statement that caused it answers.
    async listen(onChange) {
      await client.listen(CHANGES_CHANNEL, onChange);
      return () => !client.closed;
    },
    dumpDataDir: () => client.dumpDataDir(),
    close: () => client.close(),
  };
}

/** node-postgres and drizzle's driver for it: loaded only with DATABASE_URL, not for the embedded database (issue 14). */
async function postgresDriver() {
  const [{ default: driver }, { drizzle }, { migrate }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
    import('drizzle-orm/node-postgres/migrator'),
  ]);
  return { Pool: driver.Pool, Client: driver.Client, drizzle, migrate };
}

/** A PostgreSQL server at `url` (DATABASE_URL). */
export async function openPostgres(url: string): Promise<Database> {
  const { Pool, Client, drizzle: drizzlePostgres, migrate: migratePostgres } = await postgresDriver();
  const pool = new Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5_000 });
  // An idle client that errors (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {});
  // Advisory locks are held on connections of their own, so a task holding one can always get a
  // connection from the main pool for its own queries.
  const lockPool = new Pool({
    connectionString: url,
    max: 5,
    connectionTimeoutMillis: 30_000,
    statement_timeout: 60_000,
  });
  lockPool.on('error', () => {});
  const local = createKeyedMutex();
  const db = drizzlePostgres({ client: pool, schema }) as unknown as Db;
  const notices = listenForNotices(Client, url);
  announceOwnWrites(pool, notices.local);
  return {
    db,
    kind: 'postgres',
    async migrate(afterMigrate) {
      const lock = await pool.connect();
      try {
        await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        await migratePostgres(db as never, { migrationsFolder: MIGRATIONS_DIR });
        if (afterMigrate) await afterMigrate(db);
      } finally {
        await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
        lock.release();
      }
    },
    migrationsApplied: async () => (await appliedMigrationCount(db)) >= shippedMigrationCount(),
    ping: async () => {
      await pool.query('select 1');
    },
    // Callers in this process queue here first, so waiting ones do not each hold a connection.
    withLock: (key, task) =>
      local(key, async () => {
        const client = await lockPool.connect();
        try {
          await client.query('select pg_advisory_lock(hashtextextended($1, 0))', [key]);
          try {
            return await task();
          } finally {
            await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
          }
        } finally {
          client.release();
        }
      }),
    async tryLock(key, task) {
      const client = await lockPool.connect();
      try {
        const { rows } = await client.query<{ ok: boolean }>(
          'select pg_try_advisory_lock(hashtextextended($1, 0)) as ok',
          [key],
        );
        if (!rows[0]?.ok) return false;
        try {
          await task();
          return true;
        } finally {
          await client.query('select pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        }
      } finally {
        client.release();
      }
    },
    listen: notices.listen,
    close: async () => {
      await notices.close();
      await pool.end();
      await lockPool.end();
    },
  };
}

/**
 * The table a statement writes, as drizzle writes them (`insert into "t"`, `update "t"`,
 * `delete from "t"`), or null. A session's use (`update "sessions" set "last_seen_at"` alone)
 * changes nothing a cache holds.
 */
export function writtenTable(text: string): string | null {
  const match = /^\s*(?:insert\s+into|update|delete\s+from)\s+"?([a-z_]+)"?/i.exec(text);
  if (!match) return null;
  if (
    match[1] === 'sessions' &&
    /^\s*update\s+"sessions"\s+set\s+"last_seen_at"\s*=\s*\$\d+\s+where/i.test(text)
  ) {
    return null;
  }
  return match[1]!;
}

const textOf = (args: unknown[]): string | undefined =>
  typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;

/**
 * A notice arrives after the commit, asynchronously: this process's own writes are announced to
 * its caches at once, so it reads what it just wrote — a statement outside a transaction when it
 * answers, the writes of a transaction when it commits.
 */
function announceOwnWrites(pool: pg.Pool, announce: (table: string) => void): void {
  const query = pool.query.bind(pool) as (...args: unknown[]) => Promise<unknown>;
  pool.query = (async (...args: unknown[]) => {
    const result = await query(...args);
    const text = textOf(args);
    const table = text ? writtenTable(text) : null;
    if (table) announce(table);
    return result;
  }) as typeof pool.query;

  const wrapped = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => Promise<pg.PoolClient>;
  pool.connect = ((...args: unknown[]) => {
    // The callback form is the pool's own (pool.query above); transactions use the promise form.
    if (args.length > 0) return connect(...args);
    return connect().then((client) => {
      if (wrapped.has(client)) return client;
      wrapped.add(client);
      const clientQuery = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
      let written: Set<string> | null = null;
      client.query = (async (...a: unknown[]) => {
        const result = await clientQuery(...a);
        const text = textOf(a)?.trim().toLowerCase();
        if (text === undefined) return result;
        if (text.startsWith('begin')) written = new Set();
        else if (text === 'commit') {
          for (const table of written ?? []) announce(table);
          written = null;
        } else if (text === 'rollback') written = null;
        else if (written) {
          const table = writtenTable(text);
          if (table) written.add(table);
        }
        return result;
      }) as typeof client.query;
      return client;
    });
  }) as typeof pool.connect;
}

/**
 * One connection per process LISTENs on the change channel; when it breaks, every listener is
 * told to forget what it cached (notices may be lost), and the connection is made again with a
 * growing pause (up to 5 s).
 */
function listenForNotices(Client: typeof pg.Client, url: string) {
  const listeners = new Set<{ onChange: (payload: string) => void; onLost: () => void }>();
  let client: pg.Client | null = null;
  let connected = false;
  let closed = false;
  let pause = 100;
  let connecting: Promise<void> | null = null;
  const lost = () => {
    for (const l of listeners) l.onLost();
  };
  const connect = async (): Promise<void> => {
    while (!closed) {
      const next = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
      try {
        next.on('error', () => {});
        next.on('notification', (message) => {
          for (const l of listeners) l.onChange(message.payload ?? '');
        });
        next.on('end', () => {
          if (client !== next) return;
          client = null;
          connected = false;
          lost();
          if (!closed) setTimeout(() => void ensure(), pause).unref();
        });
        await next.connect();
        await next.query(`LISTEN ${CHANGES_CHANNEL}`);
        client = next;
        connected = true;
        pause = 100;
        // Whatever changed while no one listened is unknown: start afresh.
        lost();
        return;
      } catch {
        await next.end().catch(() => {});
        await new Promise((r) => setTimeout(r, pause).unref());
        pause = Math.min(pause * 2, 5_000);
      }
    }
  };
  const ensure = () => {
    connecting ??= connect().finally(() => {
      connecting = null;
    });
    return connecting;
  };
  return {
    /** A write this process made: heard as a notice at once. */
    local(payload: string) {
      for (const l of listeners) l.onChange(payload);
    },
    async listen(onChange: (payload: string) => void, onLost: () => void) {
      listeners.add({ onChange, onLost });
      if (!connected) await ensure();
      return () => connected;
    },
    async close() {
      closed = true;
      const last = client;
      client = null;
      connected = false;
      await last?.end().catch(() => {});
    },
  };
}

export function openDatabase(options: {
  databaseUrl?: string | undefined;
  dataDir: string;
}): Promise<Database> {
  return options.databaseUrl
    ? openPostgres(options.databaseUrl)
    : openPglite(path.join(options.dataDir, 'pgdata'));
}

/** The rows of a raw `db.execute` answer: PGlite and node-postgres both answer `{ rows }`. */
export function rowsOf<T = Record<string, unknown>>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}
