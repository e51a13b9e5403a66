import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../ports.ts';
import { ask, findBinary, type RunningDaemon, watch } from './spamd.ts';

/** EICAR's test file by MD5 and size, the only signature: no download, clamd starts in a second. */
const SIGNATURES = '44d88612fea8a8f36de82e1278abb02f:68:Eicar-Test-Signature\n';

/**
 * Debian's clamd on a free loopback port (and a unix socket), in the foreground, with a temporary
 * configuration and a one-signature database (moat.hdb: EICAR). clamd names its signatures from
 * an unsigned database `<name>.UNOFFICIAL`. `streamMaxLength`: clamd's StreamMaxLength (e.g. '1M').
 */
export async function startClamd(
  options: { streamMaxLength?: string } = {},
): Promise<RunningDaemon & { socketUrl: string }> {
  const bin = findBinary('clamd', 'clamav-daemon');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-clamd-'));
  fs.mkdirSync(path.join(dir, 'db'));
  fs.writeFileSync(path.join(dir, 'db', 'moat.hdb'), SIGNATURES);
  const port = await freePort();
  const socketPath = path.join(dir, 'clamd.sock');
  fs.writeFileSync(
    path.join(dir, 'clamd.conf'),
    [
      'Foreground yes',
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      `LocalSocket ${socketPath}`,
      `DatabaseDirectory ${path.join(dir, 'db')}`,
      `PidFile ${path.join(dir, 'clamd.pid')}`,
      `StreamMaxLength ${options.streamMaxLength ?? '60M'}`,
      'SelfCheck 0',
      '',
    ].join('\n'),
  );
  const child = spawn(bin, ['--config-file', path.join(dir, 'clamd.conf')], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const running = watch(child, dir, 'clamd');
  await running.until(() => ask({ host: '127.0.0.1', port }, Buffer.from('zPING\0'), /PONG/), 60_000);
  return { url: `clamd://127.0.0.1:${port}`, socketUrl: `unix:${socketPath}`, stop: running.stop };
}
