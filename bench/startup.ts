/**
 * Cold start and login-page weight, measured the way a user meets them:
 * - cold start: from spawning `node scripts/start.mjs` (web app already built) until /healthz
 *   answers, on an empty DATA_DIR (migrations + first-tenant seed) and on an existing one;
 * - login page: the JavaScript Chromium downloads to show /#/auth/login, raw and gzip.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function timeStart(dataDir: string): Promise<{ ms: number; stop: () => Promise<void>; url: string }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SMTP_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const ms = performance.now() - started;
  return {
    ms,
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchStartup() {
  // Make sure the web app is built before timing (npm start builds it when missing).
  const warm = await timeStart(fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-')));
  await warm.stop();

  const empty: number[] = [];
  const existing: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-'));
    const first = await timeStart(dir);
    empty.push(first.ms);
    await first.stop();
    const second = await timeStart(dir);
    existing.push(second.ms);
    await second.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }

  const server = await timeStart(fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-')));
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  const page = await browser.newPage();
  const scripts: { url: string; raw: number; gzip: number }[] = [];
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return;
    const body = await response.body().catch(() => null);
    if (body)
      scripts.push({ url: new URL(response.url()).pathname, raw: body.length, gzip: gzipSync(body).length });
  });
  await page.goto(`${server.url}/#/auth/login`, { waitUntil: 'networkidle' });
  await page
    .getByRole('button', { name: /sign in|log in/i })
    .first()
    .waitFor({ timeout: 15_000 });
  await browser.close();
  await server.stop();

  const result = {
    node: process.version,
    runs: RUNS,
    coldStartEmptyDataDirMs: Math.round(median(empty)),
    coldStartExistingDataDirMs: Math.round(median(existing)),
    loginPageJs: {
      files: scripts.length,
      rawBytes: scripts.reduce((s, x) => s + x.raw, 0),
      gzipBytes: scripts.reduce((s, x) => s + x.gzip, 0),
      scripts,
    },
  };
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(
    path.join(import.meta.dirname, 'results/startup.json'),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(`| measure | value |
|---|---|
| cold start, empty DATA_DIR (migrate + seed), median of ${RUNS} | ${result.coldStartEmptyDataDirMs} ms |
| cold start, existing DATA_DIR, median of ${RUNS} | ${result.coldStartExistingDataDirMs} ms |
| login page JavaScript (${result.loginPageJs.files} files) | ${kib(result.loginPageJs.gzipBytes)} gzip, ${kib(result.loginPageJs.rawBytes)} raw |`);
  return result;
}
