import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { dumpDatabase } from '../db/backup/dump.ts';
import { backupLines, readBackupHeader, writeBackupFile } from '../db/backup/file.ts';
import { BackupError, type BackupHeader, lineChannel, TargetNotEmptyError } from '../db/backup/format.ts';
import { migrationName, shippedMigrations } from '../db/backup/migrations.ts';
import { type RestoreSummary, restoreDatabase, schemaOf } from '../db/backup/restore.ts';
import { removeSnapshot } from '../db/backup/snapshot.ts';
import { type Database, type DbOrTx, openPglite, openPostgres } from '../db/client.ts';
import { acquireDataDirLock, DataDirBusyError, isProcessAlive } from '../db/data-dir-lock.ts';
import { ServerKey } from '../lib/server-key.ts';
import { createClusterRepo } from '../modules/cluster/cluster.repo.ts';
import { createClusterService } from '../modules/cluster/cluster.service.ts';
import { BridgeError, callBridge } from './bridge-client.ts';
import { required, UsageError } from './commands/command.ts';
import { type CliResult, COMMANDS } from './commands.ts';
import { readControlFile } from './control-file.ts';

/** Whether a folder holds an embedded database (the one `openDatabase` keeps in DATA_DIR/pgdata). */
export const hasDatabase = (dataDir: string) => fs.existsSync(path.join(dataDir, 'pgdata', 'PG_VERSION'));

/** A command that cannot go ahead as things are (a server running, a missing database): nothing was changed. */
class Refused extends Error {
  override name = 'Refused';
}

export interface DatabaseCommandEnv {
  config: Pick<Config, 'dataDir' | 'databaseUrl' | 'secretKey'>;
  /** Where relative paths are resolved: where the command was typed. */
  cwd: string;
  now?: () => Date;
}

const MOAT_VERSION = (
  JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** The three db:* commands; the CLI runs them itself (never through the bridge as a whole). */
export async function runDatabaseCommand(
  name: string,
  values: Record<string, unknown>,
  env: DatabaseCommandEnv,
): Promise<CliResult> {
  try {
    const run = { 'db:backup': backup, 'db:restore': restore, 'db:copy': copy }[name];
    if (!run) throw new UsageError(`Unknown database command ${name}`);
    return { exitCode: 0, stdout: `${await run(values, env)}\n`, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) {
      return {
        exitCode: 2,
        stdout: '',
        stderr: `Error: ${error.message}\nUsage: npm run cli -- ${COMMANDS[name]?.usage ?? name}\n`,
      };
    }
    if (
      error instanceof Refused ||
      error instanceof BackupError ||
      error instanceof TargetNotEmptyError ||
      error instanceof BridgeError ||
      error instanceof DataDirBusyError
    ) {
      return { exitCode: 1, stdout: '', stderr: `Error: ${error.message}\n` };
    }
    throw error;
  }
}

const redact = (url: string) => {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'the DATABASE_URL';
  }
};
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const count = (n: number) => n.toLocaleString('en-GB');
const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${(bytes / 1024).toFixed(1)} KB`;
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

function runningServer(dataDir: string): number | null {
  const control = readControlFile(dataDir);
  return control && isProcessAlive(control.pid) ? control.pid : null;
}

/** The data-dir lock, so no server starts on the folder meanwhile; refused while another process has it. */
function lock(dataDir: string): () => void {
  try {
    return acquireDataDirLock(dataDir);
  } catch (error) {
    if (error instanceof DataDirBusyError)
      throw new Refused(`${error.message}; stop it, or try again in a moment`);
    throw error;
  }
}

async function connect(url: string): Promise<Database> {
  const database = await openPostgres(url);
  try {
    await database.ping();
  } catch (error) {
    await database.close().catch(() => {});
    throw new Refused(`Cannot connect to ${redact(url)}: ${(error as Error).message}`);
  }
  return database;
}

/** Read a whole database as backup lines in one consistent, read-only transaction. */
function dumpOf(database: Database, source: BackupHeader['source'], env: DatabaseCommandEnv) {
  return (write: (line: string) => Promise<void>) =>
    database.db.transaction(
      (tx) =>
        dumpDatabase(
          tx,
          { source, moatVersion: MOAT_VERSION, now: (env.now ?? (() => new Date()))() },
          write,
        ),
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
}

async function backup(values: Record<string, unknown>, env: DatabaseCommandEnv): Promise<string> {
  const out = path.resolve(env.cwd, required(values, 'out'));
  if (!fs.existsSync(path.dirname(out))) throw new Refused(`The folder ${path.dirname(out)} does not exist`);
  if (fs.existsSync(out) && !fs.statSync(out).isFile()) throw new Refused(`${out} is not a file`);
  const { dataDir, databaseUrl, secretKey } = env.config;
  const started = performance.now();
  let from: string;
  let written: Awaited<ReturnType<typeof writeBackupFile<Awaited<ReturnType<typeof dumpDatabase>>>>>;
  if (databaseUrl) {
    const database = await connect(databaseUrl);
    try {
      written = await writeBackupFile(out, dumpOf(database, 'postgresql', env));
    } finally {
      await database.close();
    }
    from = `the PostgreSQL database ${redact(databaseUrl)}, read in one REPEATABLE READ transaction (the servers kept working)`;
  } else {
    const control = readControlFile(dataDir);
    if (control && isProcessAlive(control.pid)) {
      // The server owns the database: it copies it as of one moment, and this process reads the copy.
      const answer = await callBridge(control, {
        argv: ['db:snapshot', '--for-pid', String(process.pid)],
        cwd: env.cwd,
      });
      if (answer.exitCode !== 0) throw new Refused(answer.stderr.replace(/^Error: /, '').trim());
      const snapshot = JSON.parse(answer.stdout) as { dir: string; bytes: number; ms: number };
      try {
        const database = await openPglite(snapshot.dir);
        try {
          written = await writeBackupFile(out, dumpOf(database, 'embedded', env));
        } finally {
          await database.close();
        }
      } finally {
        removeSnapshot(snapshot.dir);
      }
      from = `the embedded database in ${dataDir}, through the running server (pid ${control.pid}): a copy as of one moment (${size(snapshot.bytes)}; the server's statements waited ${snapshot.ms} ms for it, mail kept flowing)`;
    } else {
      if (!hasDatabase(dataDir)) {
        throw new Refused(
          `There is no embedded database in ${dataDir}: nothing to back up (set DATA_DIR to the installation's folder)`,
        );
      }
      const release = lock(dataDir);
      try {
        const database = await openPglite(path.join(dataDir, 'pgdata'));
        try {
          written = await writeBackupFile(out, dumpOf(database, 'embedded', env));
        } finally {
          await database.close();
        }
      } finally {
        release();
      }
      from = `the embedded database in ${dataDir} (no server was running; DATA_DIR was locked meanwhile)`;
    }
  }
  const { header, rows } = written.result;
  const last = header.migrations.at(-1);
  const key = secretKey
    ? 'SECRET_KEY'
    : databaseUrl
      ? 'SECRET_KEY'
      : `${path.join(dataDir, 'secret.key')} (or the SECRET_KEY it runs with)`;
  return [
    `Backed up ${from}`,
    `to ${out} (${size(written.bytes)}, mode 0600) in ${seconds(started)}: ${header.tables.length} tables, ${count(rows)} rows, schema ${last ? migrationName(last) : 'none'} (${header.migrations.length} migrations).`,
    `Every table is in it, held mail included; secrets stay sealed as stored. The key that unseals them is not: keep ${key} with the backup, stored apart from it.`,
  ].join('\n');
}

/** The key a restored installation will start with, if there is one now (never made up here). */
function keyAt(config: DatabaseCommandEnv['config']): { key: ServerKey; name: string } | null {
  if (config.secretKey)
    return { key: ServerKey.fromEnvOrFile(config.secretKey, config.dataDir), name: 'SECRET_KEY' };
  const file = path.join(config.dataDir, 'secret.key');
  if (config.databaseUrl || !fs.existsSync(file)) return null;
  return { key: ServerKey.fromEnvOrFile(undefined, config.dataDir), name: file };
}

/**
 * Before the restored rows are committed: the key Moat will start with must be the one the
 * backup's installation recorded (its fingerprint), or Moat would refuse to start on them and
 * their sealed secrets would not open.
 */
function checkKey(key: ReturnType<typeof keyAt>, outcome: { state: string }) {
  return async (tx: DbOrTx) => {
    if (!key) return;
    const state = await createClusterService({ repo: createClusterRepo(tx), serverKey: key.key }).keyState();
    outcome.state = state;
    if (state === 'mismatch') {
      throw new Refused(
        `${key.name} is not the key of the installation this backup came from (the backup records another key's fingerprint): Moat would refuse to start on it, and its sealed secrets would not open. Nothing was changed: use that installation's key`,
      );
    }
  };
}

function keyLine(key: ReturnType<typeof keyAt>, state: string, dataDir: string): string {
  if (key && state === 'ok')
    return `Key: ${key.name} is the key the backup's installation used (checked): its sealed secrets open with it.`;
  if (key) return `Key: the backup records no key yet; Moat will record ${key.name} when it starts.`;
  return `Key: copy secret.key from the DATA_DIR of the installation the backup came from to ${path.join(dataDir, 'secret.key')} (mode 0600), or start with its SECRET_KEY: without that key Moat refuses to start on these data, whose sealed secrets (MFA secrets among them) need it.`;
}

function tableLines(summary: RestoreSummary, against: string): string[] {
  const filled = summary.tables.filter((t) => t.rows > 0);
  const width = Math.max(0, ...filled.map((t) => t.name.length));
  const empty = summary.tables.length - filled.length;
  return [
    ...filled.map((t) => `  ${t.name.padEnd(width)}  ${count(t.rows).padStart(9)}`),
    `  ${summary.tables.length} tables (${empty} of them empty), ${count(summary.rows)} rows: every count checked against ${against}.`,
  ];
}

function schemaLine(summary: RestoreSummary, of = "the backup's"): string {
  const { migrations } = summary.header;
  const last = migrations.at(-1);
  const base = `Schema: ${of} ${migrations.length} migrations (up to ${last ? migrationName(last) : 'none'})`;
  return summary.upgradedBy.length === 0
    ? `${base}, this Moat's latest.`
    : `${base}, then this Moat's ${summary.upgradedBy.length} newer ones (${summary.upgradedBy.join(', ')}).`;
}

async function restore(values: Record<string, unknown>, env: DatabaseCommandEnv): Promise<string> {
  const from = path.resolve(env.cwd, required(values, 'from'));
  const { dataDir, databaseUrl } = env.config;
  // A file that is no backup, or one of a newer Moat, is refused before the target is touched.
  const header = await readBackupHeader(from);
  schemaOf(header, shippedMigrations());
  const started = performance.now();
  const key = keyAt(env.config);
  const outcome = { state: 'unset' };
  const restoreInto = (database: Database) =>
    restoreDatabase(database.db, database.kind, backupLines(from), { beforeCommit: checkKey(key, outcome) });
  let summary: RestoreSummary;
  let into: string;
  let start: string;
  if (databaseUrl) {
    const database = await connect(databaseUrl);
    try {
      summary = await restoreInto(database);
    } finally {
      await database.close();
    }
    into = `the PostgreSQL database ${redact(databaseUrl)}`;
    start = `DATABASE_URL=${shellQuote(databaseUrl)} SECRET_KEY=… npm start`;
  } else {
    const server = runningServer(dataDir);
    if (server) {
      throw new Refused(
        `A Moat server (pid ${server}) is running on ${dataDir}: a restore goes into an empty DATA_DIR with no server. Stop it, or restore into another DATA_DIR`,
      );
    }
    const release = lock(dataDir);
    const existed = hasDatabase(dataDir);
    try {
      const database = await openPglite(path.join(dataDir, 'pgdata'));
      try {
        summary = await restoreInto(database);
      } catch (error) {
        await database.close();
        // The database this command made for the restore goes too: the folder is as it was.
        if (!existed) fs.rmSync(path.join(dataDir, 'pgdata'), { recursive: true, force: true });
        throw error;
      }
      await database.close();
    } finally {
      release();
    }
    into = `the embedded database in ${dataDir}`;
    start = `DATA_DIR=${shellQuote(dataDir)} npm start`;
  }
  return [
    `Restored ${from} (made ${header.createdAt} by Moat ${header.moatVersion} from ${header.source === 'embedded' ? 'an embedded database' : 'PostgreSQL'}) into ${into} in ${seconds(started)}:`,
    ...tableLines(summary, 'the backup'),
    schemaLine(summary),
    keyLine(key, outcome.state, dataDir),
    `Start Moat on it: ${start}`,
  ].join('\n');
}

async function copy(values: Record<string, unknown>, env: DatabaseCommandEnv): Promise<string> {
  const to = required(values, 'to');
  if (!/^postgres(ql)?:\/\//.test(to))
    throw new UsageError('--to must be a PostgreSQL URL: postgres://USER@HOST:PORT/DATABASE');
  const { dataDir, databaseUrl, secretKey } = env.config;
  if (databaseUrl) {
    throw new Refused(
      'db:copy copies the embedded database (DATA_DIR) into PostgreSQL, but DATABASE_URL is set: run it without DATABASE_URL (the target is --to)',
    );
  }
  const server = runningServer(dataDir);
  if (server) {
    throw new Refused(
      `The Moat server (pid ${server}) is running on ${dataDir}: stop it first. db:copy moves the installation, so it needs the server stopped: mail the server accepted after the copy would stay behind in the embedded database. (db:backup works while it runs.)`,
    );
  }
  const started = performance.now();
  if (!hasDatabase(dataDir))
    throw new Refused(`There is no embedded database in ${dataDir}: nothing to copy`);
  const release = lock(dataDir);
  try {
    const key = keyAt(env.config);
    const outcome = { state: 'unset' };
    const target = await connect(to);
    let summary: RestoreSummary;
    try {
      const source = await openPglite(path.join(dataDir, 'pgdata'));
      try {
        // The same lines a backup file holds, handed from one transaction to the other as they are read.
        const channel = lineChannel();
        const reading = dumpOf(
          source,
          'embedded',
          env,
        )((line) => channel.push(line)).then(
          (dumped) => {
            channel.close();
            return dumped;
          },
          (error: Error) => {
            channel.fail(error);
            throw error;
          },
        );
        const writing = restoreDatabase(target.db, 'postgres', channel, {
          beforeCommit: checkKey(key, outcome),
        }).catch((error: Error) => {
          channel.fail(error);
          throw error;
        });
        const [read, written] = await Promise.allSettled([reading, writing]);
        if (written.status === 'rejected') throw written.reason;
        if (read.status === 'rejected') throw read.reason;
        summary = written.value;
      } finally {
        await source.close();
      }
    } finally {
      await target.close();
    }
    const keyEnv = secretKey
      ? 'SECRET_KEY="$SECRET_KEY"'
      : `SECRET_KEY="$(cat ${shellQuote(path.join(dataDir, 'secret.key'))})"`;
    return [
      `Copied the embedded database in ${dataDir} into ${redact(to)} in ${seconds(started)}:`,
      ...tableLines(summary, 'the embedded database'),
      schemaLine(summary, "the embedded database's"),
      key
        ? `Key: ${key.name} ${outcome.state === 'ok' ? 'is the key these data were sealed with (checked)' : 'will be recorded at the first start'}; PostgreSQL needs it as SECRET_KEY.`
        : `Key: ${path.join(dataDir, 'secret.key')} is missing: start with the SECRET_KEY this installation ran with.`,
      `The embedded database in ${path.join(dataDir, 'pgdata')} is left as it was; remove it once Moat runs on PostgreSQL.`,
      'Start Moat on PostgreSQL with:',
      `  DATA_DIR=${shellQuote(dataDir)} DATABASE_URL=${shellQuote(to)} ${keyEnv} npm start`,
    ].join('\n');
  } finally {
    release();
  }
}
