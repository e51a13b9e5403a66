import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirBusyError, lockHolder } from './data-dir-lock.ts';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'moat-lock-'));

describe('data dir lock', () => {
  it('is taken, held with mode 0600, and released', () => {
    const dir = tmp();
    const release = acquireDataDirLock(dir);
    const file = path.join(dir, 'moat.lock');
    expect(fs.readFileSync(file, 'utf8')).toBe(String(process.pid));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(lockHolder(dir)).toBe(process.pid);
    release();
    expect(fs.existsSync(file)).toBe(false);
  });

  it('refuses while another live process holds it', async () => {
    const dir = tmp();
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      fs.writeFileSync(path.join(dir, 'moat.lock'), String(other.pid));
      expect(() => acquireDataDirLock(dir)).toThrow(DataDirBusyError);
      expect(() => acquireDataDirLock(dir)).toThrow(`pid ${other.pid}`);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock left by a process that is gone', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'moat.lock'), '999999999');
    const release = acquireDataDirLock(dir);
    expect(lockHolder(dir)).toBe(process.pid);
    release();
  });
});
