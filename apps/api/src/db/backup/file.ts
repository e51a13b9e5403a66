import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { BackupError, type BackupHeader, linesOf, parseHeader } from './format.ts';

/**
 * Write a backup file: the lines `produce` writes, gzip'd, into a temporary file beside `out`
 * (mode 0600), flushed to disk, then renamed to `out` — so `out` is either the whole backup or
 * left as it was, never half a backup. Writing waits while gzip and the disk catch up.
 */
export async function writeBackupFile<T>(
  out: string,
  produce: (write: (line: string) => Promise<void>) => Promise<T>,
): Promise<{ result: T; bytes: number }> {
  const dir = path.dirname(out);
  const partial = path.join(
    dir,
    `.${path.basename(out)}.${process.pid}.${randomBytes(4).toString('hex')}.partial`,
  );
  const handle = await fs.promises.open(partial, 'wx', 0o600);
  const gzip = zlib.createGzip({ level: 6 });
  const done = pipeline(gzip, handle.createWriteStream());
  // Until it is awaited below, a failure is read where the writer waits.
  done.catch(() => {});
  const write = async (line: string) => {
    if (!gzip.write(`${line}\n`)) await Promise.race([once(gzip, 'drain'), done]);
  };
  try {
    const result = await produce(write);
    gzip.end();
    await done;
    const written = await fs.promises.open(partial, 'r+');
    try {
      await written.chmod(0o600);
      await written.sync();
    } finally {
      await written.close();
    }
    await fs.promises.rename(partial, out);
    const parent = await fs.promises.open(dir, 'r');
    await parent.sync().finally(() => parent.close());
    return { result, bytes: (await fs.promises.stat(out)).size };
  } catch (error) {
    gzip.destroy();
    await done.catch(() => {});
    await fs.promises.rm(partial, { force: true });
    throw error;
  }
}

/** gzip's complaints in words: another kind of file, or one cut short or damaged. */
function gzipError(error: Error & { code?: string }): Error {
  if (error.code === 'Z_DATA_ERROR' && /header/i.test(error.message)) {
    return new BackupError('The file is not a Moat backup (not a gzip file)');
  }
  if (error.code === 'Z_BUF_ERROR' || /unexpected end/i.test(error.message)) {
    return new BackupError('The backup is cut short (truncated?): its gzip stream ends early');
  }
  if (error.code?.startsWith('Z_')) return new BackupError(`The backup file is damaged (${error.message})`);
  return error;
}

/** The lines of a backup file; a missing file, a damaged gzip or a cut-off end is a BackupError. */
export async function* backupLines(file: string): AsyncGenerator<string> {
  let stream: fs.ReadStream;
  try {
    await fs.promises.access(file, fs.constants.R_OK);
    stream = fs.createReadStream(file);
  } catch {
    throw new BackupError(`Cannot read the file ${file}`);
  }
  const gunzip = zlib.createGunzip();
  const feeding = pipeline(stream, gunzip);
  feeding.catch(() => {});
  try {
    yield* linesOf(gunzip);
    await feeding;
  } catch (error) {
    throw gzipError(error as Error);
  } finally {
    stream.destroy();
    gunzip.destroy();
  }
}

/** The header of a backup file, checked, without reading further. */
export async function readBackupHeader(file: string): Promise<BackupHeader> {
  const lines = backupLines(file);
  try {
    const first = await lines.next();
    return parseHeader(first.done ? undefined : first.value);
  } finally {
    await lines.return(undefined);
  }
}
