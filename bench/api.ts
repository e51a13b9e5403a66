/**
 * API speed as ratios to a bare Fastify 5 server measured in the same run (issue 10):
 * `POST /api/v1/{type}/identification_needed` (a recipient's link) and an authenticated
 * `GET /api/v1/current_user`, each against a bare Fastify hello-world answering the same method,
 * over HTTP on loopback, in interleaved pairs (Moat, bare, Moat, bare, …), median of the pairs.
 * Moat runs as `npm start` runs it (scripts/start.mjs: the compiled server in its own process, production settings), once on the embedded
 * PGlite and once on PostgreSQL; the idle resident memory of each is read from /proc, next to the
 * bare server's.
 *
 * BENCH_PG_URL: the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/postgres); a
 * fresh database is created on it and dropped afterwards. BENCH_API_PAIRS (default 5),
 * BENCH_API_REQUESTS per measure (default 2000), BENCH_API_CONCURRENCY (default 16).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import { type Database, openPglite } from '../apps/api/src/db/client.ts';
import { freePort, freshPostgres, median, productionEnv, seededApp } from './support.ts';

const PAIRS = Number(process.env.BENCH_API_PAIRS ?? 5);
const REQUESTS = Number(process.env.BENCH_API_REQUESTS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_API_CONCURRENCY ?? 16);
const SERVER_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ROOT = path.resolve(import.meta.dirname, '..');
const SECRET = crypto.randomBytes(32).toString('base64');
const MESSAGES = 50;
/** BENCH_API_DB=pglite or postgres runs one of the two. */
const ONLY = process.env.BENCH_API_DB;

async function waitForHealth(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${log()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not answer /healthz:\n${log()}`);
}

function rssMiB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

export interface Server {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

export async function startProcess(
  args: string[],
  env: Record<string, string>,
  port: number,
): Promise<Server> {
  let output = '';
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => {
    output += d;
  });
  child.stderr!.on('data', (d) => {
    output += d;
  });
  await waitForHealth(port, child, () => output);
  return {
    port,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** The floor: Fastify 5 with nothing but the two routes, answering JSON. */
export async function startBare(): Promise<Server> {
  const port = await freePort();
  return startProcess(
    [path.join(import.meta.dirname, 'servers/bare-fastify.mjs')],
    { PORT: String(port) },
    port,
  );
}

export interface Target {
  method: 'GET' | 'POST';
  /** The path of request i. */
  path: (i: number) => string;
  headers: (i: number) => Record<string, string>;
  body?: string;
  /** The status every answer must have (200 unless said). */
  status?: number;
}

/** Requests per second: `REQUESTS` requests, `CONCURRENCY` at a time, keep-alive. */
export async function load(
  port: number,
  target: Target,
  count = REQUESTS,
  concurrency = CONCURRENCY,
): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let failures = 0;
  let firstFailure = '';
  const one = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          method: target.method,
          path: target.path(i),
          agent,
          headers: {
            ...target.headers(i),
            ...(target.body
              ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(target.body) }
              : {}),
          },
        },
        (res) => {
          let body = '';
          res.on('data', (d) => {
            body += d;
          });
          res.on('end', () => {
            if (res.statusCode !== (target.status ?? 200)) {
              failures++;
              firstFailure ||= `${res.statusCode} ${body.slice(0, 200)}`;
            }
            resolve();
          });
        },
      );
      req.on('error', reject);
      if (target.body) req.write(target.body);
      req.end();
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await one(next++);
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failures) throw new Error(`${failures} of ${count} requests failed, first: ${firstFailure}`);
  return count / seconds;
}

async function benchOne(kind: 'pglite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `moat-bench-api-${kind}-`));
  let dropDatabase = async () => {};
  let databaseUrl: string | undefined;
  let database: Database;
  if (kind === 'postgres') {
    const fresh = await freshPostgres('moat_bench_api', SERVER_URL);
    databaseUrl = fresh.url;
    database = await fresh.open();
    dropDatabase = fresh.drop;
  } else {
    database = await openPglite(path.join(dataDir, 'pgdata'));
  }
  const { app, links, token } = await seededApp(database, dataDir, MESSAGES);
  await app.close();
  await database.close();

  const port = await freePort();
  const moat = await startProcess(
    [
      ...(process.env.BENCH_API_PROFILE
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_API_PROFILE]
        : []),
      // As `npm start` runs it: the compiled server, in the process of scripts/start.mjs.
      'scripts/start.mjs',
    ],
    {
      // No web app: its build is not what is measured.
      WEB_DIST_DIR: path.join(dataDir, 'no-web'),
      ...(await productionEnv({ port, dataDir, secretKey: SECRET })),
      // Each request comes from its own client address, as a crowd of recipients would, so the
      // per-address limits count as they do in production without stopping the benchmark.
      TRUST_PROXY: '127.0.0.1',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      // BENCH_API_REDIS=1: the shared counters in Redis (REDIS_URL) instead of PostgreSQL.
      ...(process.env.BENCH_API_REDIS
        ? { REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }
        : {}),
    },
    port,
  );
  const bare = await startBare();
  try {
    await new Promise((r) => setTimeout(r, 3_000));
    const idle = { moat_rss_mib: rssMiB(moat.pid), bare_rss_mib: rssMiB(bare.pid) };
    const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    let round = 0;
    const targets: Record<string, { moat: Target; bare: Target }> = {
      identification_needed: {
        moat: {
          method: 'POST',
          path: (i) => `/api/v1/office365_emails/identification_needed?msg=${links[i % links.length]}`,
          headers: (i) => ({ 'x-requested-with': 'bench', 'x-forwarded-for': address(round * REQUESTS + i) }),
          body: JSON.stringify({ action_name: 'email_restore' }),
        },
        bare: {
          method: 'POST',
          path: () => '/api/v1/office365_emails/identification_needed',
          headers: () => ({}),
          body: JSON.stringify({ action_name: 'email_restore' }),
        },
      },
      current_user: {
        moat: {
          method: 'GET',
          path: () => '/api/v1/current_user',
          headers: (i) => ({
            cookie: `${SESSION_COOKIE}=${token}`,
            'x-forwarded-for': address(round * REQUESTS + i),
          }),
        },
        bare: { method: 'GET', path: () => '/api/v1/current_user', headers: () => ({}) },
      },
    };
    const out: Record<string, unknown> = { idle };
    for (const [name, target] of Object.entries(targets)) {
      // Warm up both (the JIT, the caches, the pools) with as many requests as a measure.
      await load(moat.port, target.moat);
      await load(bare.port, target.bare);
      const pairs: Array<{ moat: number; bare: number; ratio: number }> = [];
      for (let p = 0; p < PAIRS; p++) {
        round++;
        const m = await load(moat.port, target.moat);
        const b = await load(bare.port, target.bare);
        pairs.push({ moat: Math.round(m), bare: Math.round(b), ratio: m / b });
      }
      out[name] = {
        moat_per_second: Math.round(median(pairs.map((p) => p.moat))),
        bare_per_second: Math.round(median(pairs.map((p) => p.bare))),
        ratio: Number(median(pairs.map((p) => p.ratio)).toFixed(3)),
        pairs,
      };
    }
    out.after_load = { moat_rss_mib: rssMiB(moat.pid) };
    return out;
  } finally {
    await moat.stop();
    await bare.stop();
    await dropDatabase();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchApi() {
  const result = {
    requests: REQUESTS,
    concurrency: CONCURRENCY,
    pairs: PAIRS,
    pglite: ONLY === 'postgres' ? null : await benchOne('pglite'),
    postgres: ONLY === 'pglite' ? null : await benchOne('postgres'),
  };
  const row = (
    label: string,
    r: Record<string, { moat_per_second: number; bare_per_second: number; ratio: number }>,
  ) =>
    `| ${label} | ${r.identification_needed!.moat_per_second} /s vs ${r.identification_needed!.bare_per_second} /s = ${r.identification_needed!.ratio} | ${r.current_user!.moat_per_second} /s vs ${r.current_user!.bare_per_second} /s = ${r.current_user!.ratio} |`;
  console.log(
    '| database | identification_needed vs bare Fastify | current_user (signed in) vs bare Fastify |\n|---|---|---|',
  );
  for (const [label, r] of [
    ['PGlite', result.pglite],
    ['PostgreSQL', result.postgres],
  ] as const) {
    if (!r) continue;
    console.log(row(label, r as never));
    const idle = r.idle as { moat_rss_mib: number; bare_rss_mib: number };
    console.log(
      `| idle RSS (${label}) | Moat ${idle.moat_rss_mib} MiB | bare Fastify ${idle.bare_rss_mib} MiB |`,
    );
  }
  return result;
}
