import type { Readable } from 'node:stream';
import type { MigrationId } from './migrations.ts';

/**
 * A Moat backup: gzip'd JSON lines (docs/backup-format.md).
 *
 *   line 1        the header: format, version, Moat's version, when, the source database, the
 *                 schema's migrations, and every table with its columns and row count, in
 *                 dependency order (a table after those it refers to)
 *   per table     `{"table": name, "rows": n}`, then exactly n lines: each row as PostgreSQL's
 *                 `row_to_json` writes it (bytea as "\\x…" hex, timestamps ISO 8601, jsonb as JSON)
 *   last line     `{"end": "moat-backup", "tables": t, "rows": r}`: a file without it is cut short
 *
 * Rows are never parsed on the way through: PostgreSQL writes them and reads them back
 * (`json_populate_recordset`), so every value comes back exactly as it was, sealed secrets
 * included.
 */
export const BACKUP_FORMAT = 'moat-backup';
export const BACKUP_VERSION = 1;

export interface BackupTable {
  name: string;
  /** Stored columns (not generated ones), in the table's order. */
  columns: string[];
  rows: number;
}

export interface BackupHeader {
  format: typeof BACKUP_FORMAT;
  version: typeof BACKUP_VERSION;
  moatVersion: string;
  createdAt: string;
  /** Where it was read: the embedded database or a PostgreSQL server. */
  source: 'embedded' | 'postgresql';
  /** The source server's `server_version`. */
  serverVersion: string;
  /** The schema the rows fit: the migrations the source had applied, in order. */
  migrations: MigrationId[];
  tables: BackupTable[];
}

export interface BackupSection {
  table: string;
  rows: number;
}

export interface BackupTrailer {
  end: typeof BACKUP_FORMAT;
  tables: number;
  rows: number;
}

/** A backup that cannot be used as it is (damaged, cut short, another format, a newer schema). */
export class BackupError extends Error {
  override name = 'BackupError';
}

/** The target of a restore or copy holds data already: nothing was changed. */
export class TargetNotEmptyError extends Error {
  override name = 'TargetNotEmptyError';
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The header of a backup, checked field by field (names are put into SQL, so they must be plain). */
export function parseHeader(line: string | undefined): BackupHeader {
  if (line === undefined) throw new BackupError('The file is empty: not a Moat backup');
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new BackupError('The file is not a Moat backup (its first line is not a backup header)');
  }
  const h = value as Partial<BackupHeader> | null;
  if (!h || typeof h !== 'object' || h.format !== BACKUP_FORMAT) {
    throw new BackupError('The file is not a Moat backup (its first line is not a backup header)');
  }
  if (h.version !== BACKUP_VERSION) {
    throw new BackupError(
      `The backup is in format version ${String(h.version)}; this Moat reads version ${BACKUP_VERSION}: restore it with the Moat that made it or a newer one`,
    );
  }
  const migrationsOk =
    Array.isArray(h.migrations) &&
    h.migrations.every(
      (m) =>
        m &&
        Number.isSafeInteger(m.when) &&
        typeof m.hash === 'string' &&
        (m.tag === null || typeof m.tag === 'string'),
    );
  const tablesOk =
    Array.isArray(h.tables) &&
    h.tables.every(
      (t) =>
        t &&
        typeof t.name === 'string' &&
        NAME.test(t.name) &&
        Array.isArray(t.columns) &&
        t.columns.length > 0 &&
        t.columns.every((c) => typeof c === 'string' && NAME.test(c)) &&
        Number.isSafeInteger(t.rows) &&
        t.rows >= 0,
    );
  if (!migrationsOk || !tablesOk || typeof h.createdAt !== 'string') {
    throw new BackupError(
      'The backup header is damaged (its migrations or tables are not as a backup writes them)',
    );
  }
  return h as BackupHeader;
}

export function parseSection(line: string | undefined, expected: BackupTable): void {
  if (line === undefined) throw cutShort(`before the rows of ${expected.name}`);
  let section: Partial<BackupSection> | null = null;
  try {
    section = JSON.parse(line) as Partial<BackupSection>;
  } catch {
    // reported below
  }
  if (!section || section.table !== expected.name || section.rows !== expected.rows) {
    throw new BackupError(
      `The backup is damaged: the rows of ${expected.name} (${expected.rows}) should start here, found something else`,
    );
  }
}

export function parseTrailer(line: string | undefined, header: BackupHeader): void {
  if (line === undefined) throw cutShort('before its end mark');
  const rows = header.tables.reduce((sum, t) => sum + t.rows, 0);
  let trailer: Partial<BackupTrailer> | null = null;
  try {
    trailer = JSON.parse(line) as Partial<BackupTrailer>;
  } catch {
    // reported below
  }
  if (
    !trailer ||
    trailer.end !== BACKUP_FORMAT ||
    trailer.tables !== header.tables.length ||
    trailer.rows !== rows
  ) {
    throw new BackupError(
      'The backup is damaged: its last table has more rows than its header says, or its end mark is wrong',
    );
  }
}

export const cutShort = (where: string) =>
  new BackupError(`The backup is cut short (truncated?): it ends ${where}`);

/**
 * The lines of a stream, one string each (a line may be as long as the largest row). The
 * stream's own error (a damaged gzip) is thrown from the iteration.
 */
export async function* linesOf(stream: Readable): AsyncGenerator<string> {
  let pending: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    let end = chunk.indexOf(10);
    while (end !== -1) {
      pending.push(chunk.subarray(start, end));
      yield Buffer.concat(pending).toString('utf8');
      pending = [];
      start = end + 1;
      end = chunk.indexOf(10, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield Buffer.concat(pending).toString('utf8');
}

/**
 * A bounded hand-over of lines from a writer to a reader (the backup read in one transaction,
 * the restore in another, for db:copy): `push` waits while `maxBytes` are waiting to be read.
 * `fail` ends it with an error on both sides.
 */
export function lineChannel(maxBytes = 16 * 1024 * 1024) {
  const queue: string[] = [];
  let queued = 0;
  let closed = false;
  let failure: Error | null = null;
  let wakeReader: (() => void) | null = null;
  let wakeWriter: (() => void) | null = null;
  const wake = () => {
    wakeReader?.();
    wakeReader = null;
  };
  const unblock = () => {
    wakeWriter?.();
    wakeWriter = null;
  };
  return {
    async push(line: string): Promise<void> {
      while (queued >= maxBytes && !failure) await new Promise<void>((resolve) => (wakeWriter = resolve));
      if (failure) throw failure;
      queue.push(line);
      queued += line.length;
      wake();
    },
    close() {
      closed = true;
      wake();
    },
    fail(error: Error) {
      failure ??= error;
      wake();
      unblock();
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<string> {
      while (true) {
        if (failure) throw failure;
        const line = queue.shift();
        if (line !== undefined) {
          queued -= line.length;
          unblock();
          yield line;
          continue;
        }
        if (closed) return;
        await new Promise<void>((resolve) => (wakeReader = resolve));
      }
    },
  };
}
