import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, openPglite, openPostgres } from '../db/client.ts';

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new
 * database on the TEST_DATABASE_URL server when the suite runs as `api-postgres`.
 * `close()` throws the database away.
 */
export async function openTestDatabase(): Promise<Database> {
  if (process.env.MOAT_TEST_DB !== 'postgres') {
    const database = await openPglite(null);
    await database.migrate();
    return database;
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('MOAT_TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `moat_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString());
  await database.migrate();
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
