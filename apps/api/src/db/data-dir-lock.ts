import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded database belongs to one process. Whoever opens it (the server, or the CLI
 * when no server runs) holds `DATA_DIR/moat.lock` holding its pid; a lock whose process is
 * gone is stale and taken over.
 */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
  constructor(
    readonly pid: number,
    dataDir: string,
  ) {
    super(`Another Moat process (pid ${pid}) is using the embedded database in ${dataDir}`);
  }
}

export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'moat.lock'), 'utf8').trim());
    return isProcessAlive(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Take the lock or throw DataDirBusyError. Returns the function that releases it. */
export function acquireDataDirLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, 'moat.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(file, 'utf8').trim() === String(process.pid)) fs.unlinkSync(file);
        } catch {
          // already gone
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(dataDir);
      if (holder !== null && holder !== process.pid) throw new DataDirBusyError(holder, dataDir);
      fs.rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not take the lock ${file}`);
}
