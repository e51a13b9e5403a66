import fs from 'node:fs';
import path from 'node:path';

/**
 * While the server owns the embedded database, it leaves DATA_DIR/control.json (mode 0600)
 * with its pid, port and a random secret, so the CLI of the same owner can reach it over
 * loopback. Nobody else can read the secret.
 */
export interface ControlInfo {
  pid: number;
  port: number;
  token: string;
}

export const controlFilePath = (dataDir: string) => path.join(dataDir, 'control.json');

export function writeControlFile(dataDir: string, info: ControlInfo): void {
  const file = controlFilePath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(info), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

export function readControlFile(dataDir: string): ControlInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(controlFilePath(dataDir), 'utf8')) as ControlInfo;
    return Number.isInteger(info.pid) && Number.isInteger(info.port) && typeof info.token === 'string'
      ? info
      : null;
  } catch {
    return null;
  }
}

export function removeControlFile(dataDir: string, pid: number): void {
  const info = readControlFile(dataDir);
  if (info?.pid === pid) fs.rmSync(controlFilePath(dataDir), { force: true });
}
