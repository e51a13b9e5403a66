import { sql } from 'drizzle-orm';
import { type Db, type DbOrTx, MIGRATION_LOCK_KEY, rowsOf } from '../client.ts';
import { quoteIdent, tablesOf } from './dump.ts';
import {
  BackupError,
  type BackupHeader,
  cutShort,
  parseHeader,
  parseSection,
  parseTrailer,
  TargetNotEmptyError,
} from './format.ts';
import {
  appliedMigrations,
  applyMigrations,
  migrationName,
  type ShippedMigration,
  shippedMigrations,
} from './migrations.ts';

/** About how many bytes of rows one insert sends. */
const INSERT_BYTES = 4 * 1024 * 1024;
const INSERT_ROWS = 1_000;

export interface RestoreSummary {
  header: BackupHeader;
  /** Rows per table, counted in the target after the restore (equal to the backup's). */
  tables: Array<{ name: string; rows: number }>;
  rows: number;
  /** Migrations of this build applied after the rows, bringing the backup's schema up to date. */
  upgradedBy: string[];
}

/** What the target holds already, in words; null when it is empty (no table, no migration). */
export async function contentsOf(tx: DbOrTx): Promise<string | null> {
  const tables = rowsOf<{ name: string }>(
    await tx.execute(sql`
      select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') order by 1`),
  );
  const applied = (await appliedMigrations(tx)).length;
  if (tables.length === 0 && applied === 0) return null;
  const names = tables.map((t) => t.name);
  const shown = names.length > 5 ? `${names.slice(0, 5).join(', ')}, …` : names.join(', ');
  return [
    names.length > 0 ? `${names.length} relations (${shown})` : null,
    applied > 0 ? `${applied} applied migrations` : null,
  ]
    .filter(Boolean)
    .join(' and ');
}

/**
 * Which of this build's migrations make the backup's schema: refused when the backup's schema
 * is not a beginning of this build's (a newer Moat made it, or another line of migrations).
 */
export function schemaOf(header: BackupHeader, shipped: ShippedMigration[]): ShippedMigration[] {
  for (const [i, m] of header.migrations.entries()) {
    const own = shipped[i];
    if (!own) {
      throw new BackupError(
        `This backup was made by a newer Moat: its schema has ${header.migrations.length} migrations (the last ${migrationName(header.migrations.at(-1)!)}), this Moat knows ${shipped.length} (the last ${shipped.at(-1)?.tag}). Restore it with Moat ${header.moatVersion} or newer`,
      );
    }
    if (own.when !== m.when || own.hash !== m.hash) {
      throw new BackupError(
        `The backup's schema differs from this Moat's at migration ${i + 1} (${migrationName(m)}, here ${own.tag}): restore it with the Moat that made it (${header.moatVersion})`,
      );
    }
  }
  return shipped.slice(0, header.migrations.length);
}

/**
 * Restore a backup's lines into an empty database, all in one transaction: a backup that is
 * refused or breaks off part way (damaged, cut short) leaves the target as empty as it was.
 * The target is migrated to the backup's schema, its rows are inserted table by table in the
 * backup's order (user triggers off, so rows go in exactly as they were), sequences are set past
 * the highest ids, every table's count is checked, and then this build's newer migrations run,
 * as they would on an upgrade.
 */
export async function restoreDatabase(
  db: Db,
  kind: 'pglite' | 'postgres',
  lines: AsyncIterable<string>,
  options: {
    /** Last checks on the restored data before it is committed (the server key's fingerprint); a throw undoes it all. */
    beforeCommit?: (tx: DbOrTx) => Promise<void>;
  } = {},
): Promise<RestoreSummary> {
  const iterator = lines[Symbol.asyncIterator]();
  const next = async () => {
    const { value, done } = await iterator.next();
    return done ? undefined : value;
  };
  try {
    return await db.transaction(async (tx) => {
      // A server starting against this database meanwhile waits, then finds it restored.
      if (kind === 'postgres') await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      const header = parseHeader(await next());
      const contents = await contentsOf(tx);
      if (contents) {
        throw new TargetNotEmptyError(
          `The target database is not empty: it has ${contents}. Nothing was changed`,
        );
      }
      const shipped = shippedMigrations();
      const schema = schemaOf(header, shipped);
      await applyMigrations(tx, schema);

      const target = new Map((await tablesOf(tx)).map((t) => [t.name, t.columns.map((c) => c.column)]));
      for (const table of header.tables) {
        const columns = target.get(table.name);
        if (!columns || !sameSet(columns, table.columns)) {
          throw new BackupError(
            `The backup's table ${table.name} does not match the schema of its migrations (${columns ? 'other columns' : 'no such table'}): the backup is damaged`,
          );
        }
        target.delete(table.name);
      }
      if (target.size > 0) {
        throw new BackupError(
          `The backup lacks the tables ${[...target.keys()].join(', ')} of its schema: the backup is damaged`,
        );
      }

      for (const table of header.tables) {
        await tx.execute(sql.raw(`alter table ${quoteIdent(table.name)} disable trigger user`));
      }
      for (const table of header.tables) {
        parseSection(await next(), table);
        const name = quoteIdent(table.name);
        const columns = table.columns.map(quoteIdent).join(', ');
        const insert = (rows: string[]) =>
          tx.execute(
            sql`insert into ${sql.raw(name)} (${sql.raw(columns)}) overriding system value select ${sql.raw(columns)} from json_populate_recordset(null::${sql.raw(name)}, ${`[${rows.join(',')}]`}::json)`,
          );
        let batch: string[] = [];
        let bytes = 0;
        for (let read = 0; read < table.rows; read++) {
          const line = await next();
          if (line === undefined) throw cutShort(`in the rows of ${table.name} (${read} of ${table.rows})`);
          if (!line.startsWith('{') || !line.endsWith('}')) {
            throw new BackupError(`The backup is damaged: row ${read + 1} of ${table.name} is not a row`);
          }
          batch.push(line);
          bytes += line.length;
          if (bytes >= INSERT_BYTES || batch.length >= INSERT_ROWS) {
            await insert(batch);
            batch = [];
            bytes = 0;
          }
        }
        if (batch.length > 0) await insert(batch);
      }
      parseTrailer(await next(), header);
      if ((await next()) !== undefined)
        throw new BackupError('The backup is damaged: there is more after its end mark');
      for (const table of header.tables) {
        await tx.execute(sql.raw(`alter table ${quoteIdent(table.name)} enable trigger user`));
      }
      await resetSequences(tx);

      const counted: RestoreSummary['tables'] = [];
      for (const table of header.tables) {
        const [row] = rowsOf<{ n: string | number }>(
          await tx.execute(sql.raw(`select count(*) as n from ${quoteIdent(table.name)}`)),
        );
        const rows = Number(row!.n);
        if (rows !== table.rows) {
          throw new BackupError(
            `The backup is damaged: ${table.name} has ${rows} rows after the restore, the backup says ${table.rows}`,
          );
        }
        counted.push({ name: table.name, rows });
      }
      const newer = shipped.slice(schema.length);
      await applyMigrations(tx, newer);
      await options.beforeCommit?.(tx);
      return {
        header,
        tables: counted,
        rows: counted.reduce((sum, t) => sum + t.rows, 0),
        upgradedBy: newer.map((m) => m.tag),
      };
    });
  } catch (error) {
    // What the file said wrong is the message; a row PostgreSQL would not take is a damaged backup.
    if (error instanceof BackupError || error instanceof TargetNotEmptyError) throw error;
    // drizzle wraps the database's error (its `cause`), which carries PostgreSQL's code.
    const e = ((error as { cause?: unknown }).cause ?? error) as Error & { code?: string };
    if (e.code && /^(22|23)/.test(e.code)) {
      throw new BackupError(
        `The backup is damaged: PostgreSQL refused its rows (${e.message}). Nothing was changed`,
      );
    }
    throw error;
  } finally {
    // Stop reading (and close the file) whatever happened.
    await iterator.return?.(undefined);
  }
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/** Every identity or serial column's sequence set past the column's highest value. */
async function resetSequences(tx: DbOrTx): Promise<void> {
  const owned = rowsOf<{ seq: string; tbl: string; col: string }>(
    await tx.execute(sql`
      select pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) as seq,
             c.relname as tbl, a.attname as col
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = 'public' and c.relkind = 'r'
        and pg_get_serial_sequence(format('%I.%I', n.nspname, c.relname), a.attname) is not null`),
  );
  for (const { seq, tbl, col } of owned) {
    await tx.execute(
      sql`select setval(${seq}::regclass, coalesce(max(${sql.raw(quoteIdent(col))}), 0) + 1, false) from ${sql.raw(quoteIdent(tbl))}`,
    );
  }
}
