import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../client.ts';
import { isProcessAlive } from '../data-dir-lock.ts';
import { RemotePglite } from '../pglite-remote.ts';

const SNAPSHOT = /^backup-snapshot-(\d+)-[0-9a-f]+$/;

/** Copy a folder's files (reflinks where the file system has them), a few at a time. */
async function copyTree(from: string, to: string): Promise<number> {
  const files: Array<[string, string]> = [];
  const walk = (source: string, target: string) => {
    fs.mkdirSync(target, { mode: 0o700 });
    for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
      const a = path.join(source, entry.name);
      const b = path.join(target, entry.name);
      if (entry.isDirectory()) walk(a, b);
      else if (entry.isFile()) files.push([a, b]);
    }
  };
  walk(from, to);
  let next = 0;
  let bytes = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < files.length) {
        const [a, b] = files[next++]!;
        await fs.promises.copyFile(a, b, fs.constants.COPYFILE_FICLONE);
        bytes += (await fs.promises.stat(b)).size;
      }
    }),
  );
  return bytes;
}

/**
 * The embedded database as of one moment, for a backup while the server runs: inside a
 * transaction — which in PGlite, one connection, holds every other statement back — a
 * checkpoint writes out what is in memory, then the data directory is copied beside it
 * (`DATA_DIR/backup-snapshot-<pid>-…`). Other statements wait only for the copy (about a second
 * for a small installation; the SMTP and HTTP servers keep answering meanwhile), then go on
 * while the backup is read from the copy by another PGlite. The caller (`forPid`) removes the
 * copy when done; a copy whose process is gone is removed by the next snapshot.
 */
export async function snapshotEmbedded(
  db: Db,
  forPid: number,
): Promise<{ dir: string; bytes: number; ms: number }> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (!(client instanceof RemotePglite) || !client.dataDir) {
    throw new Error('A snapshot needs the embedded database stored in DATA_DIR');
  }
  const pgdata = path.resolve(client.dataDir);
  const root = path.dirname(pgdata);
  for (const entry of fs.readdirSync(root)) {
    const stale = SNAPSHOT.exec(entry);
    if (stale && !isProcessAlive(Number(stale[1])))
      fs.rmSync(path.join(root, entry), { recursive: true, force: true });
  }
  const dir = path.join(root, `backup-snapshot-${forPid}-${randomBytes(4).toString('hex')}`);
  const started = performance.now();
  try {
    const bytes = await client.transaction(async (tx) => {
      await tx.query('checkpoint');
      return copyTree(pgdata, dir);
    });
    return { dir, bytes, ms: Math.round(performance.now() - started) };
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** Remove a snapshot made by `snapshotEmbedded` (only such a folder). */
export function removeSnapshot(dir: string): void {
  if (SNAPSHOT.test(path.basename(dir))) fs.rmSync(dir, { recursive: true, force: true });
}
