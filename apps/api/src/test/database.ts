import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { type Database, MIGRATIONS_DIR, openPglite, openPostgres } from '../db/client.ts';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new database
 * on the TEST_DATABASE_URL server when the suite runs as `api-postgres`. Either is a copy of one
 * template migrated once per version of the migrations (a PGlite data-directory dump in the
 * temporary folder; a PostgreSQL `CREATE DATABASE … TEMPLATE`), so a test file's time is its
 * tests', not the migrations'. `close()` throws the database away.
 */
export async function openTestDatabase(): Promise<Database> {
  return process.env.MOAT_TEST_DB === 'postgres' ? openTestPostgres() : openTestPglite();
}

/** The migrations' fingerprint: a changed or added migration makes a new template. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else hash.update(entry.name).update(fs.readFileSync(full));
    }
  };
  walk(MIGRATIONS_DIR);
  return hash.digest('hex').slice(0, 16);
}

async function openTestPglite(): Promise<Database> {
  const dir = path.join(os.tmpdir(), 'moat-test-templates');
  const file = path.join(dir, `pglite-${migrationsHash()}.tar`);
  const template = readIfPresent(file);
  if (template) return openPglite(null, { loadDataDir: new Blob([new Uint8Array(template)]) });
  const database = await openPglite(null);
  await database.migrate();
  // Several test files may make it at once: each writes its own file and renames it into place.
  const dump = await database.dumpDataDir();
  fs.mkdirSync(dir, { recursive: true });
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(partial, file);
  // Templates of older migrations are of no more use (another checkout may make its own again).
  for (const old of fs.readdirSync(dir)) {
    if (old.startsWith('pglite-') && old.endsWith('.tar') && path.join(dir, old) !== file) {
      fs.rmSync(path.join(dir, old), { force: true });
    }
  }
  return database;
}

function readIfPresent(file: string): Buffer | null {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

async function openTestPostgres(): Promise<Database> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('MOAT_TEST_DB=postgres needs TEST_DATABASE_URL');
  const template = `moat_template_${migrationsHash()}`;
  const name = `moat_test_${randomBytes(6).toString('hex')}`;
  const urlOf = (db: string) => {
    const url = new URL(adminUrl);
    url.pathname = `/${db}`;
    return url.toString();
  };
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // One test file migrates the template; the others wait for it (a server-wide advisory lock).
    await admin.query('select pg_advisory_lock(hashtextextended($1, 0))', [template]);
    try {
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [template]);
      if (!rowCount) {
        await admin.query(`create database ${template}`);
        const database = await openPostgres(urlOf(template));
        try {
          await database.migrate();
        } catch (error) {
          await database.close();
          await admin.query(`drop database if exists ${template} with (force)`);
          throw error;
        }
        await database.close();
      }
      await admin.query(`create database ${name} template ${template}`);
    } finally {
      await admin.query('select pg_advisory_unlock(hashtextextended($1, 0))', [template]);
    }
  } finally {
    await admin.end();
  }
  const database = await openPostgres(urlOf(name));
  return {
    ...database,
    async close() {
      await database.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      await dropper.query(`drop database if exists ${name} with (force)`);
      await dropper.end();
    },
  };
}
