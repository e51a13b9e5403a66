import { sql } from 'drizzle-orm';
import { type DbOrTx, rowsOf } from '../client.ts';
import {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  type BackupHeader,
  type BackupSection,
  type BackupTable,
  type BackupTrailer,
} from './format.ts';
import { appliedMigrations } from './migrations.ts';

/** Roughly how many bytes of rows one read brings into memory (a single larger row comes alone). */
const BATCH_BYTES = 4 * 1024 * 1024;
const BATCH_ROWS = 2_000;
/** Row sizes read per step of the first pass over a table. */
const SIZE_PAGE = 10_000;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

interface Column {
  table: string;
  column: string;
  /** pg_type: typlen (-1 for variable length) and typcategory ('S' strings). */
  len: number;
  category: string;
  type: string;
}

/**
 * The tables of schema `public` with their stored columns, in dependency order: every table
 * after the tables its foreign keys point to (ties by name), so a restore inserts parents first.
 */
export async function tablesOf(tx: DbOrTx): Promise<Array<{ name: string; columns: Column[] }>> {
  const columns = rowsOf<Column>(
    await tx.execute(sql`
      select c.relname as "table", a.attname as "column", t.typlen::int as len,
             t.typcategory::text as category, t.typname::text as type
      from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
      join pg_type t on t.oid = a.atttypid
      where n.nspname = 'public' and c.relkind = 'r'
      order by c.relname, a.attnum`),
  );
  const edges = rowsOf<{ child: string; parent: string }>(
    await tx.execute(sql`
      select ch.relname as child, pa.relname as parent
      from pg_constraint k
      join pg_class ch on ch.oid = k.conrelid
      join pg_class pa on pa.oid = k.confrelid
      join pg_namespace n on n.oid = ch.relnamespace
      where k.contype = 'f' and n.nspname = 'public'`),
  );
  const byTable = new Map<string, Column[]>();
  for (const c of columns) byTable.set(c.table, [...(byTable.get(c.table) ?? []), c]);
  const parents = new Map<string, Set<string>>([...byTable.keys()].map((t) => [t, new Set<string>()]));
  for (const e of edges) {
    if (e.child === e.parent) {
      throw new Error(`Table ${e.child} refers to itself: a backup cannot order its rows for a restore`);
    }
    parents.get(e.child)?.add(e.parent);
  }
  const ordered: string[] = [];
  const done = new Set<string>();
  while (done.size < parents.size) {
    const ready = [...parents]
      .filter(([t, ps]) => !done.has(t) && [...ps].every((p) => done.has(p) || !parents.has(p)))
      .map(([t]) => t)
      .sort();
    if (ready.length === 0)
      throw new Error('The tables refer to each other in a cycle: no restore order exists');
    for (const t of ready) {
      done.add(t);
      ordered.push(t);
    }
  }
  return ordered.map((name) => ({ name, columns: byTable.get(name)! }));
}

/** About how many bytes a row's JSON takes, from sizes PostgreSQL knows without reading the values. */
function sizeExpression(columns: Column[]): string {
  const parts = columns.map((c) => {
    const col = quoteIdent(c.column);
    if (c.len > 0) return String(c.len * 3 + 8);
    if (c.type === 'bytea') return `coalesce(octet_length(${col}), 0) * 2 + 8`;
    if (c.category === 'S') return `coalesce(octet_length(${col}), 0) + 8`;
    return `coalesce(pg_column_size(${col}), 0) * 2 + 8`;
  });
  return `(${parts.join(' + ')})::bigint`;
}

export interface DumpSummary {
  header: BackupHeader;
  rows: number;
}

/**
 * Write a whole database as backup lines (format.ts), reading in the caller's transaction: with
 * PostgreSQL a REPEATABLE READ READ ONLY one, so every table is read as of one moment while mail
 * goes on. A table is read in two passes within that snapshot: the rows' sizes and places
 * (ctid), then the rows themselves in batches of about 4 MB, so a table of large messages never
 * sits in memory whole.
 */
export async function dumpDatabase(
  tx: DbOrTx,
  info: { source: BackupHeader['source']; moatVersion: string; now: Date },
  write: (line: string) => Promise<void>,
): Promise<DumpSummary> {
  // The text forms PostgreSQL writes and reads back the same way, whatever the server's settings.
  await tx.execute(sql.raw(`set local bytea_output = 'hex'`));
  await tx.execute(sql.raw(`set local timezone = 'UTC'`));
  await tx.execute(sql.raw(`set local intervalstyle = 'postgres'`));
  await tx.execute(sql.raw('set local extra_float_digits = 3'));
  const [version] = rowsOf<{ server_version: string }>(await tx.execute(sql.raw('show server_version')));
  const migrations = await appliedMigrations(tx);
  const tables = await tablesOf(tx);
  const listed: BackupTable[] = [];
  for (const table of tables) {
    const [row] = rowsOf<{ n: string | number }>(
      await tx.execute(sql.raw(`select count(*) as n from ${quoteIdent(table.name)}`)),
    );
    listed.push({ name: table.name, columns: table.columns.map((c) => c.column), rows: Number(row!.n) });
  }
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    moatVersion: info.moatVersion,
    createdAt: info.now.toISOString(),
    source: info.source,
    serverVersion: version?.server_version ?? 'unknown',
    migrations,
    tables: listed,
  };
  await write(JSON.stringify(header));

  let total = 0;
  for (const [i, table] of tables.entries()) {
    const expected = listed[i]!.rows;
    await write(JSON.stringify({ table: table.name, rows: expected } satisfies BackupSection));
    const name = quoteIdent(table.name);
    const columns = sql.raw(table.columns.map((c) => quoteIdent(c.column)).join(', '));
    // The rows at these places, each as one line of JSON text written by PostgreSQL.
    const rowsAt = (places: string[]) =>
      sql`select row_to_json(x)::text as r from (select ${columns} from ${sql.raw(name)} where ctid = any(${`{${places.map((p) => `"${p}"`).join(',')}}`}::tid[])) x`;
    const cursor = `moat_backup_${i}`;
    await tx.execute(
      sql.raw(
        `declare ${cursor} no scroll cursor for select ctid::text as at, ${sizeExpression(table.columns)} as size from ${name}`,
      ),
    );
    let written = 0;
    while (true) {
      const places = rowsOf<{ at: string; size: string | number }>(
        await tx.execute(sql.raw(`fetch ${SIZE_PAGE} from ${cursor}`)),
      );
      if (places.length === 0) break;
      let batch: string[] = [];
      let bytes = 0;
      const flush = async () => {
        if (batch.length === 0) return;
        const rows = rowsOf<{ r: string }>(await tx.execute(rowsAt(batch)));
        for (const row of rows) await write(row.r);
        written += rows.length;
        batch = [];
        bytes = 0;
      };
      for (const place of places) {
        const size = Number(place.size);
        if (batch.length > 0 && (bytes + size > BATCH_BYTES || batch.length >= BATCH_ROWS)) await flush();
        batch.push(place.at);
        bytes += size;
      }
      await flush();
    }
    await tx.execute(sql.raw(`close ${cursor}`));
    if (written !== expected) {
      throw new Error(
        `Read ${written} rows of ${table.name} where it counted ${expected}: the read was not consistent`,
      );
    }
    total += written;
  }
  await write(
    JSON.stringify({ end: BACKUP_FORMAT, tables: tables.length, rows: total } satisfies BackupTrailer),
  );
  return { header, rows: total };
}
