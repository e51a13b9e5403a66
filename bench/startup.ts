/**
 * Cold start and login-page weight, measured the way a user meets them:
 * - cold start: from spawning `node scripts/start.mjs` (web app already built) until /healthz
 *   answers, on an empty DATA_DIR (migrations + first-tenant seed) and on an existing one;
 * - start CPU (issue 14): the CPU seconds `node scripts/start.mjs` spends until /healthz answers
 *   on an existing DATA_DIR, against a bare Fastify's `listen` (bench/servers/bare-fastify.mjs),
 *   interleaved pairs, the median of the pairs' ratios; and, in the same rounds, the floor under
 *   it: the embedded database alone (bench/servers/embedded-database.mjs);
 * - login page: the JavaScript Chromium downloads to show /#/auth/login, raw and gzip.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, freePort } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

/** CPU seconds (user + system) a running process has used so far, from /proc. */
function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) in parentheses; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}
/** USER_HZ: 100 on Linux. */
const CLOCK_TICKS = 100;

async function timeStart(
  dataDir: string,
  script = path.join(ROOT, 'scripts/start.mjs'),
  extraEnv: Record<string, string> = {},
): Promise<{ ms: number; cpuSeconds: number; stop: () => Promise<void>; url: string; pid: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, [script], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      SMTP_PORT: String(await freePort()),
      SUBMISSION_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      ...extraEnv,
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
  const cpuSeconds = cpuSecondsOf(child.pid!);
  return {
    ms,
    cpuSeconds,
    url,
    pid: child.pid!,
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

  // Start CPU on an existing DATA_DIR against a bare Fastify listen, in interleaved pairs.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-'));
  await (await timeStart(dataDir)).stop();
  const pairs: Array<{ moat: number; bare: number; ratio: number; database: number }> = [];
  for (let i = 0; i < RUNS; i++) {
    const moat = await timeStart(dataDir);
    await moat.stop();
    const bare = await timeStart(dataDir, path.join(import.meta.dirname, 'servers/bare-fastify.mjs'));
    await bare.stop();
    // The floor: Node and the embedded database alone, on the same DATA_DIR.
    const database = await timeStart(
      dataDir,
      path.join(import.meta.dirname, 'servers/embedded-database.mjs'),
    );
    await database.stop();
    pairs.push({
      moat: moat.cpuSeconds,
      bare: bare.cpuSeconds,
      ratio: moat.cpuSeconds / bare.cpuSeconds,
      database: database.cpuSeconds,
    });
  }

  // The embedded database's speed once started, with Moat's V8 flags against V8's defaults
  // (interleaved): the time of the last of four rounds of 300 queries, and the CPU seconds of the
  // start and all 1,200 queries.
  const EMBEDDED = path.join(import.meta.dirname, 'servers/embedded-database.mjs');
  const queries: Array<{ moatFlags: number; defaults: number; moatFlagsCpu: number; defaultsCpu: number }> =
    [];
  const lastRound = async (env: Record<string, string>) => {
    const server = await timeStart(dataDir, EMBEDDED, env);
    let ms = 0;
    for (let round = 0; round < 4; round++) {
      ms = ((await (await fetch(`${server.url}/query?n=300`)).json()) as { ms: number }).ms;
    }
    const cpu = cpuSecondsOf(server.pid);
    await server.stop();
    return { ms, cpu };
  };
  for (let i = 0; i < RUNS; i++) {
    const ours = await lastRound({});
    const defaults = await lastRound({ V8_DEFAULTS: '1' });
    queries.push({
      moatFlags: ours.ms,
      defaults: defaults.ms,
      moatFlagsCpu: ours.cpu,
      defaultsCpu: defaults.cpu,
    });
  }
  fs.rmSync(dataDir, { recursive: true, force: true });

  const server = await timeStart(fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-')));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
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
    startCpu: {
      moatSeconds: median(pairs.map((p) => p.moat)),
      bareFastifySeconds: median(pairs.map((p) => p.bare)),
      ratio: Math.round(median(pairs.map((p) => p.ratio)) * 100) / 100,
      embeddedDatabaseAloneSeconds: median(pairs.map((p) => p.database)),
      embeddedDatabaseAloneRatio: Math.round(median(pairs.map((p) => p.database / p.bare)) * 100) / 100,
      pairs,
    },
    embeddedDatabaseQueries: {
      lastRoundRatio: Math.round(median(queries.map((q) => q.moatFlags / q.defaults)) * 100) / 100,
      cpuRatio: Math.round(median(queries.map((q) => q.moatFlagsCpu / q.defaultsCpu)) * 100) / 100,
      runs: queries,
    },
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
| CPU to /healthz, existing DATA_DIR ÷ bare Fastify listen (${RUNS} pairs) | ${result.startCpu.ratio} (${result.startCpu.moatSeconds} s against ${result.startCpu.bareFastifySeconds} s) |
| the embedded database alone (Node, PGlite, node:http) ÷ bare Fastify listen | ${result.startCpu.embeddedDatabaseAloneRatio} (${result.startCpu.embeddedDatabaseAloneSeconds} s) |
| embedded database with Moat's V8 flags ÷ V8's defaults: 4th round of 300 queries; CPU of start + 1,200 queries | ${result.embeddedDatabaseQueries.lastRoundRatio}; ${result.embeddedDatabaseQueries.cpuRatio} |
| login page JavaScript (${result.loginPageJs.files} files) | ${kib(result.loginPageJs.gzipBytes)} gzip, ${kib(result.loginPageJs.rawBytes)} raw |`);
  return result;
}
