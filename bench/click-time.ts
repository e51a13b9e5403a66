/**
 * Click-time protection's clean click (issue 36): `GET /l/<token>?u=<url>` on Moat — the token
 * opened, the click judged (exceptions, the message's verdict now, the URL's features) and
 * answered with a 303, the click recorded after the answer — against a bare Fastify 5 answering
 * the same path with a 303 and nothing else, over HTTP on loopback, in interleaved pairs (Moat,
 * bare, …), median of the pairs. Also each one's latency at the 95th percentile, one request at a
 * time (server time plus loopback). Moat runs as `npm start` runs it, on the embedded PGlite and
 * on PostgreSQL 15 (`BENCH_DATABASE_URL`'s server, a fresh database).
 *
 * BENCH_CLICK_PAIRS (default 7), BENCH_CLICK_REQUESTS per measure (default 10,000).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { openPglite } from '../apps/api/src/db/client.ts';
import { ServerKey } from '../apps/api/src/lib/server-key.ts';
import { createLinkTokens } from '../apps/api/src/modules/click-time/link-token.ts';
import { load, startBare, startProcess, type Target } from './api.ts';
import { freePort, freshPostgres, median, productionEnv, seededApp } from './support.ts';

const PAIRS = Number(process.env.BENCH_CLICK_PAIRS ?? 7);
const REQUESTS = Number(process.env.BENCH_CLICK_REQUESTS ?? 10_000);
const LINKS = 200;
const BROWSER = {
  'user-agent':
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
  accept: 'text/html',
  'accept-language': 'en',
};

/** Milliseconds per request at the 95th percentile, `count` requests one after another. */
async function p95(port: number, target: Target, count = 1000): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'GET', path: target.path(i), agent, headers: target.headers(i) },
        (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 303 ? resolve() : reject(new Error(`status ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end();
    });
    times.push(performance.now() - started);
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  return Number(times[Math.floor(times.length * 0.95)]!.toFixed(3));
}

export async function benchClickTime() {
  return { pglite: await benchOne('pglite'), postgres: await benchOne('postgres') };
}

async function benchOne(kind: 'pglite' | 'postgres') {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `moat-bench-click-${kind}-`));
  const secret = crypto.randomBytes(32).toString('base64');
  const fresh = kind === 'postgres' ? await freshPostgres('moat_bench_click') : null;
  const database = fresh ? await fresh.open() : await openPglite(path.join(dataDir, 'pgdata'));
  const { app } = await seededApp(database, dataDir, 0);
  const [row] = (
    (await database.db.execute(
      `select tenant_id from users where email = 'admin@bench.test'` as never,
    )) as unknown as {
      rows: Array<{ tenant_id: string }>;
    }
  ).rows;
  const tenantId = row!.tenant_id;
  // A delivered message whose links were rewritten: its Mail Explorer row, as the gateway writes it.
  const inboundId = crypto.randomUUID();
  await database.db.execute(
    `insert into mail_log (tenant_id, inbound_id, recipient, sender, received_at, verdict, action, size)
     values ('${tenantId}', '${inboundId}', 'admin@bench.test', 'news@outside.example', now(), 'clean', 'delivered', 1000)` as never,
  );
  await app.close();
  await database.close();
  const tokens = createLinkTokens(ServerKey.fromEnvOrFile(secret, dataDir));
  const links = Array.from({ length: LINKS }, (_, i) => {
    const url = `https://news${i % 20}.example/article/${i}?utm_source=mail`;
    const token = tokens.seal({ tenantId, inboundId, recipient: 'admin@bench.test', index: i }, url);
    return `/l/${token}?u=${encodeURIComponent(url)}`;
  });

  const port = await freePort();
  const moat = await startProcess(
    [
      ...(process.env.BENCH_CLICK_PROFILE
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CLICK_PROFILE]
        : []),
      'scripts/start.mjs',
    ],
    {
      WEB_DIST_DIR: path.join(dataDir, 'no-web'),
      ...(await productionEnv({ port, dataDir, secretKey: secret })),
      ...(fresh ? { DATABASE_URL: fresh.url } : {}),
    },
    port,
  );
  const bare = await startBare();
  try {
    const moatTarget: Target = {
      method: 'GET',
      path: (i) => links[i % LINKS]!,
      headers: () => BROWSER,
      status: 303,
    };
    const bareTarget: Target = {
      method: 'GET',
      path: (i) => `/l/x?u=${encodeURIComponent(`https://news${i % 20}.example/article/${i}`)}`,
      headers: () => BROWSER,
      status: 303,
    };
    await load(moat.port, moatTarget, REQUESTS);
    await load(bare.port, bareTarget, REQUESTS);
    const pairs: Array<{ moat: number; bare: number; ratio: number }> = [];
    for (let p = 0; p < PAIRS; p++) {
      const m = await load(moat.port, moatTarget, REQUESTS);
      const b = await load(bare.port, bareTarget, REQUESTS);
      pairs.push({ moat: Math.round(m), bare: Math.round(b), ratio: Number((m / b).toFixed(3)) });
    }
    const latency = {
      moat_p95_ms: await p95(moat.port, moatTarget),
      bare_p95_ms: await p95(bare.port, bareTarget),
    };
    const result = {
      database: kind,
      clean_click: {
        moat_per_second: Math.round(median(pairs.map((p) => p.moat))),
        bare_per_second: Math.round(median(pairs.map((p) => p.bare))),
        ratio: Number(median(pairs.map((p) => p.ratio)).toFixed(3)),
        pairs,
      },
      latency,
    };
    console.log(JSON.stringify(result, null, 2));
    return result;
  } finally {
    await moat.stop();
    await bare.stop();
    await fresh?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
