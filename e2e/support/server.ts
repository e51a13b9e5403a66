import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'moat-e2e-'));
}

/** The migrated, empty embedded database that test servers start from (made once per run). */
let template: Promise<string> | null = null;
function dataTemplate(): Promise<string> {
  template ??= new Promise<string>((resolve, reject) => {
    const dir = path.join(os.tmpdir(), `moat-e2e-template-${process.pid}`);
    fs.rmSync(dir, { recursive: true, force: true });
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'e2e/support/make-data-template.ts'), dir],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(dir) : reject(new Error(`making the data template failed:\n${stderr}`)),
    );
  });
  return template;
}

/**
 * A new data folder holding a copy of the migrated, empty database: Moat's first start on it
 * seeds the organisation and its admin as on an empty folder, without creating and migrating a
 * database first. For tests that are not about a first start itself.
 */
export async function templateDataDir(): Promise<string> {
  const from = await dataTemplate();
  const dir = tempDataDir();
  fs.cpSync(path.join(from, 'pgdata'), path.join(dir, 'pgdata'), { recursive: true });
  return dir;
}

export interface RunningMoat {
  url: string;
  port: number;
  /** The SMTP gateway's port. */
  smtpPort: number;
  dataDir: string;
  process: ChildProcess;
  /** Everything the server printed so far (stdout and stderr). */
  output(): string;
  /** Stop with a signal and wait for the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Start Moat exactly as `npm start` does (node scripts/start.mjs) on free ports and the given
 * DATA_DIR, and wait until /healthz answers.
 */
export async function startMoat(
  options: { dataDir?: string; env?: Record<string, string> } = {},
): Promise<RunningMoat> {
  // A port found free may be taken by another process (an outgoing connection's ephemeral port)
  // before Moat binds it: Moat then exits with EADDRINUSE, and starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startMoatOnce(options);
    } catch (error) {
      const lost = error instanceof PortTaken && !options.env?.PORT && !options.env?.SMTP_PORT;
      if (!lost || attempt === 3) throw error;
    }
  }
}

class PortTaken extends Error {}

async function startMoatOnce(options: {
  dataDir?: string;
  env?: Record<string, string>;
}): Promise<RunningMoat> {
  const dataDir = options.dataDir ?? tempDataDir();
  const port = await freePort();
  const smtpPort = await freePort();
  let output = '';
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SMTP_PORT: String(smtpPort),
      // Outbound submission on a port of its own choosing: servers started side by side never meet.
      SUBMISSION_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      const message = `Moat exited with ${child.exitCode}:\n${output}`;
      throw /EADDRINUSE/.test(output) ? new PortTaken(message) : new Error(message);
    }
    const ok = await fetch(`${url}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (Date.now() >= deadline) {
    child.kill('SIGKILL');
    throw new Error(`Moat did not answer /healthz within 120 s:\n${output}`);
  }
  return {
    url,
    port,
    smtpPort,
    dataDir,
    process: child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}

/** Run `npm run cli -- ...` against a DATA_DIR (through the running server if there is one). */
export function runCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'apps/api/src/cli/main.ts'), ...args],
      {
        cwd: ROOT,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
