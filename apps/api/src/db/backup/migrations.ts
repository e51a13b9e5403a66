import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { type DbOrTx, MIGRATIONS_DIR, rowsOf } from '../client.ts';

/** One migration as a backup names it: its file's tag, its journal time and its SQL's SHA-256. */
export interface MigrationId {
  tag: string | null;
  when: number;
  hash: string;
}

export interface ShippedMigration extends MigrationId {
  tag: string;
  statements: string[];
}

/** The migrations this build ships, in order (drizzle's journal and files: the same hashes it records). */
export function shippedMigrations(): ShippedMigration[] {
  const journal = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'meta/_journal.json'), 'utf8')) as {
    entries: Array<{ tag: string; when: number }>;
  };
  const files = readMigrationFiles({ migrationsFolder: MIGRATIONS_DIR });
  return journal.entries.map((entry, i) => ({
    tag: entry.tag,
    when: entry.when,
    hash: files[i]!.hash,
    statements: files[i]!.sql,
  }));
}

/** The migrations a database has applied (drizzle's own table), named by this build's journal where it knows them. */
export async function appliedMigrations(tx: DbOrTx): Promise<MigrationId[]> {
  const [exists] = rowsOf<{ present: boolean }>(
    await tx.execute(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as present`),
  );
  if (!exists?.present) return [];
  const rows = rowsOf<{ hash: string; created_at: string | number }>(
    await tx.execute(sql`select hash, created_at from drizzle.__drizzle_migrations order by created_at, id`),
  );
  const tags = new Map(shippedMigrations().map((m) => [m.when, m.tag]));
  return rows.map((r) => ({
    tag: tags.get(Number(r.created_at)) ?? null,
    when: Number(r.created_at),
    hash: r.hash,
  }));
}

/**
 * Apply `migrations` in the caller's transaction, exactly as drizzle's migrator does (its
 * statements, then a row in drizzle.__drizzle_migrations with the file's hash and journal time),
 * so a server started later sees them applied and goes on from there.
 */
export async function applyMigrations(tx: DbOrTx, migrations: ShippedMigration[]): Promise<void> {
  await tx.execute(sql`create schema if not exists drizzle`);
  await tx.execute(
    sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`,
  );
  for (const migration of migrations) {
    for (const statement of migration.statements) await tx.execute(sql.raw(statement));
    await tx.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.when})`,
    );
  }
}

/** A migration's name for people: its tag, or its journal time when this build does not know it. */
export const migrationName = (m: MigrationId) => m.tag ?? `an unknown migration (${m.when})`;
