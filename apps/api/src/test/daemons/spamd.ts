import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { engineInputOf } from '../../engines/engine-input.ts';
import { freePort } from '../ports.ts';

/** A running daemon for tests and the benchmark: its URL and how to stop it. */
export interface RunningDaemon {
  url: string;
  stop(): Promise<void>;
}

/**
 * Debian's spamd on a free loopback port, in the foreground, with a temporary Bayes database:
 * local tests only (`-L`, no DNS), no user configuration (`-x`), learning allowed (`--allow-tell`),
 * no autolearning (a scan does not change what a later TELL answers). As root it runs as nobody
 * (spamd would switch to the spamc user, else nobody, anyway). Rules: the packaged
 * /usr/share/spamassassin (no sa-update here), site config /etc/spamassassin (its .pre files load
 * the plugins).
 */
export async function startSpamd(options: { cf?: string[] } = {}): Promise<RunningDaemon> {
  const bin = findBinary('spamd', 'spamassassin');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-spamd-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) fs.chmodSync(dir, 0o777); // the Bayes files are written as nobody
  const port = await freePort();
  const child = spawn(
    bin,
    [
      '--local',
      '--nouser-config',
      '--allow-tell',
      `--listen=127.0.0.1:${port}`,
      '--syslog=stderr',
      `--helper-home-dir=${dir}`,
      '--max-children=2',
      '--min-children=1',
      '--cf=bayes_auto_learn 0',
      `--cf=bayes_path ${dir}/bayes`,
      // More settings (a test's Bayes that judges after a few learns).
      ...(options.cf ?? []).map((line) => `--cf=${line}`),
      ...(asRoot ? ['--username=nobody'] : []),
    ],
    { cwd: dir, env: { ...process.env, LANG: 'C', LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const running = watch(child, dir, 'spamd');
  await running.until(
    () => ask({ host: '127.0.0.1', port }, Buffer.from('PING SPAMC/1.5\r\n\r\n'), /PONG/),
    90_000,
  );
  return { url: `spamd://127.0.0.1:${port}`, stop: running.stop };
}

/** The binary's path, or an Error naming the Debian package that installs it. */
export function findBinary(name: string, aptPackage: string): string {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), '/usr/sbin', '/usr/local/sbin'];
  for (const dir of dirs) {
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {}
  }
  throw new Error(`${name} is not installed (apt-get install ${aptPackage})`);
}

/**
 * Why a daemon's tests cannot run here (its binary is missing), or null. Tests skip on it locally;
 * in CI (CI=true) they run and fail, naming the package.
 */
export function skipReason(name: string, aptPackage: string): string | null {
  if (process.env.CI === 'true') return null;
  try {
    findBinary(name, aptPackage);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** What the daemon tests scan a message with: a sender from outside, no recipient of ours. */
export const daemonInput = (raw: Buffer) =>
  engineInputOf(raw, {
    envelope: {
      mailFrom: 'bob@outside.example',
      clientIp: '192.0.2.1',
      helo: 'mx.outside.example',
      rcptTo: [],
    },
  });

/** Connect, send, read until the peer closes or `done` matches: true when it matched. */
export function ask(target: net.NetConnectOpts, request: Buffer, done: RegExp): Promise<boolean> {
  return new Promise((resolve) => {
    let text = '';
    const socket = net.connect(target, () => socket.write(request));
    socket.setTimeout(2_000, () => socket.destroy());
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (done.test(text)) {
        socket.destroy();
        resolve(true);
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(done.test(text)));
  });
}

/**
 * Keeps the daemon's last output (for the error when it dies), waits for it to answer, stops it
 * (and its children: spamd stops its own on SIGTERM) and removes its directory.
 */
export function watch(child: ChildProcess, dir: string, name: string) {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const stop = async () => {
    process.off('exit', killOnExit);
    if (!exited) {
      child.kill('SIGTERM');
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exit;
      clearTimeout(force);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const until = async (answers: () => Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await answers())) {
      if (exited || Date.now() > deadline) {
        await stop();
        throw new Error(
          `${name} did not start (${exited ? 'it exited' : `no answer in ${timeoutMs} ms`}):\n${output}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { stop, until };
}
