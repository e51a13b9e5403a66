import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A name for this process among the nodes of one database: the host (or `base`), the pid and a random suffix. */
export const nodeNameOf = (base: string = os.hostname()) =>
  `${base}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** This process's name where none is configured (tests, the CLI). */
export const LOCAL_NODE = nodeNameOf();

/** The node that last ran on a data folder (DATA_DIR/node.json). */
interface NodeRecord {
  name: string;
  pid: number;
  host: string;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: a process of another user has that pid now: alive, and not ours to judge.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Record `name` as the node running on `dataDir`, and return the name of the node that ran there
 * before when it is certainly gone (same host, its process no longer running, or its pid now this
 * process's own): the work it held under lease is this node's to take back at once, instead of
 * waiting for the leases to run out. Null when there was none, or it may still be running.
 */
export function takeOverDataDir(dataDir: string, name: string): string | null {
  const file = path.join(dataDir, 'node.json');
  let previous: NodeRecord | null = null;
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<NodeRecord>;
    if (typeof parsed.name === 'string' && typeof parsed.pid === 'number' && typeof parsed.host === 'string')
      previous = parsed as NodeRecord;
  } catch {
    // No record (a first start) or an unreadable one: nothing to take back.
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const record: NodeRecord = { name, pid: process.pid, host: os.hostname() };
  fs.writeFileSync(`${file}.tmp`, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  fs.renameSync(`${file}.tmp`, file);
  if (!previous || previous.name === name || previous.host !== record.host) return null;
  if (previous.pid !== process.pid && isAlive(previous.pid)) return null;
  return previous.name;
}
