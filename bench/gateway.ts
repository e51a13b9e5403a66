/**
 * The mail gateway under load, as an MTA meets it: Moat started as `npm start` starts it (its own
 * process; the embedded database, or PostgreSQL with BENCH_DATABASE_URL / BENCH_PG_URL, where a
 * fresh database is created and dropped), relaying to a local sink; messages sent over SMTP by a
 * pooled client. Reports:
 * - throughput: messages per second from the first send until every message reached the sink
 *   (the whole pipeline: SMTP in, durable store, parse, SPF/DKIM/DMARC, engines, policy, outbox,
 *   relay), against a bare smtp-server that accepts and drops, driven the same way, in
 *   BENCH_GATEWAY_PAIRS (3) interleaved pairs (bare, Moat, bare, Moat …): the median of the pairs'
 *   ratios; the machine's load average; and the server's peak memory (VmHWM);
 * - crash: BENCH_CRASH_MESSAGES (10,000) messages, the server killed with SIGKILL part-way and
 *   started again on the same DATA_DIR while the client keeps retrying what was not answered 250.
 *   Every message answered 250 must end up delivered (or, for the EICAR ones, held with the
 *   recipient told) exactly once;
 * - metrics: the server's `moat_gateway_messages_total` by verdict and action, scraped from its
 *   /metrics (as a Prometheus on the same host does: loopback) before and after the timed pairs,
 *   outside the timed sections, so the counters are seen to move.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { freePort, freshPostgres, median } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const THROUGHPUT_MESSAGES = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 1_000);
const CRASH_MESSAGES = Number(process.env.BENCH_CRASH_MESSAGES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PAIRS = Number(process.env.BENCH_GATEWAY_PAIRS ?? 3);
/** PostgreSQL server to run on (a fresh database is created on it and dropped); unset: embedded. */
const PG_SERVER_URL = process.env.BENCH_DATABASE_URL ?? process.env.BENCH_PG_URL;
/** Every node of one database shares the key (any fixed value serves a benchmark). */
const SECRET = 'b'.repeat(64);
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

/** The next hop: counts what arrives by Message-ID and by held-notice subject. */
async function startSink() {
  const delivered = new Map<string, number>();
  const held = new Map<string, number>();
  let total = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const head = Buffer.concat(chunks).subarray(0, 16_384).toString();
        const id = /^Message-ID:\s*<bench-([^>]+)>/im.exec(head)?.[1];
        const heldSubject = /^Subject: A message to you was held: (Bench \S+)/im.exec(head)?.[1];
        if (id) delivered.set(id, (delivered.get(id) ?? 0) + 1);
        if (heldSubject) held.set(heldSubject, (held.get(heldSubject) ?? 0) + 1);
        total += 1;
        callback();
      });
    },
  });
  // A client that vanishes (the killed server's relay connections) is its own business.
  server.on('error', () => {});
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    delivered,
    held,
    total: () => total,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A fresh PostgreSQL database for the run, and how to drop it; none without a server URL. */
async function freshDatabase(): Promise<{ url: string | undefined; drop: () => Promise<void> }> {
  if (!PG_SERVER_URL) return { url: undefined, drop: async () => {} };
  const { url, drop } = await freshPostgres('moat_bench_gw', PG_SERVER_URL);
  return { url, drop };
}

async function startMoat(
  dataDir: string,
  relayPort: number,
  smtpPort: number,
  httpPort: number,
  databaseUrl?: string,
) {
  // The server as `npm start` runs it (scripts/start.mjs, the compiled server), without the web app.
  // BENCH_GATEWAY_PROFILE: a directory for the server's CPU profile (written when it stops).
  const profile = process.env.BENCH_GATEWAY_PROFILE
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_GATEWAY_PROFILE]
    : [];
  const child = spawn(process.execPath, [...profile, 'scripts/start.mjs'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      WEB_DIST_DIR: path.join(dataDir, 'no-web'),
      ...(databaseUrl
        ? {
            DATABASE_URL: databaseUrl,
            SECRET_KEY: SECRET,
            // After the kill -9 the restarted node takes the dead one's work over once its lease lapses.
            WORK_LEASE_SECONDS: '10',
          }
        : {}),
      PORT: String(httpPort),
      SMTP_PORT: String(smtpPort),
      SUBMISSION_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      ADMIN_EMAIL: 'admin@acme.test',
      ADMIN_PASSWORD: 'benchmark password',
      SMTP_RELAY_URL: `smtp://127.0.0.1:${relayPort}`,
      SMTP_MAX_MESSAGES_PER_MINUTE: '1000000',
      SMTP_MAX_CONNECTIONS_PER_IP: '1000',
    },
    stdio: 'ignore',
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Moat exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(smtpPort, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `moat_gateway_messages_total` of the server by "verdict/action", from its /metrics. */
async function gatewayCounters(httpPort: number): Promise<Record<string, number>> {
  const res = await fetch(`http://127.0.0.1:${httpPort}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  const counters: Record<string, number> = {};
  for (const [, labels = '', value] of (await res.text()).matchAll(
    /^moat_gateway_messages_total\{([^}]*)\} (\S+)$/gm,
  )) {
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1] ?? '';
    counters[`${label('verdict')}/${label('action')}`] = Number(value);
  }
  return counters;
}

const sum = (counters: Record<string, number>) => Object.values(counters).reduce((a, b) => a + b, 0);

function peakRssMiB(child: ChildProcess): number {
  try {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

function message(i: number, tag: string) {
  const malware = i % 100 === 99;
  return {
    from: 'Bob <bob@outside.test>',
    to: `user${i % 50}@acme.test`,
    subject: `Bench ${tag}-${i}`,
    messageId: `<bench-${tag}-${i}@bench.test>`,
    text: `Message ${i} of the benchmark.\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`,
    ...(malware ? { attachments: [{ filename: 'eicar.txt', content: EICAR }] } : {}),
  };
}

type Outcome = 'accepted' | 'ambiguous';

/**
 * Send every message, CONCURRENCY at a time, retrying until it is answered 250. A message whose
 * attempt failed after its data may have been stored (the connection broke) is `ambiguous`: the
 * client could not know, and sends it again, as a real MTA would.
 */
async function sendAll(port: () => number, count: number, tag: string, onProgress?: (sent: number) => void) {
  const outcomes = new Map<number, Outcome>();
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      let transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port: port(),
        pool: true,
        maxConnections: 1,
        ignoreTLS: true,
      });
      while (next < count) {
        const i = next++;
        for (;;) {
          try {
            await transport.sendMail(message(i, tag));
            if (!outcomes.has(i)) outcomes.set(i, 'accepted');
            accepted += 1;
            onProgress?.(accepted);
            break;
          } catch (error) {
            const e = error as { code?: string; responseCode?: number };
            const refusedBeforeData =
              e.code === 'ECONNREFUSED' || (e.responseCode !== undefined && e.responseCode >= 400);
            if (!refusedBeforeData) outcomes.set(i, 'ambiguous');
            transport.close();
            await new Promise((r) => setTimeout(r, 200));
            transport = nodemailer.createTransport({
              host: '127.0.0.1',
              port: port(),
              pool: true,
              maxConnections: 1,
              ignoreTLS: true,
            });
          }
        }
      }
      transport.close();
    }),
  );
  return { outcomes, seconds: (performance.now() - started) / 1000 };
}

async function waitFor(done: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return done();
}

const perSecond = (count: number, seconds: number) => Math.round((count / seconds) * 10) / 10;

export async function benchGateway() {
  // Baseline: a bare smtp-server that accepts and drops, driven the same way.
  const bare = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onData(stream, _s, cb) {
      stream.on('data', () => {});
      stream.on('end', () => cb());
    },
  });
  bare.on('error', () => {});
  const barePort = await freePort();
  await new Promise<void>((r) => bare.listen(barePort, '127.0.0.1', r));

  const sink = await startSink();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-gw-'));
  const database = await freshDatabase();
  const smtpPort = await freePort();
  const httpPort = await freePort();
  let moat = await startMoat(dataDir, sink.port, smtpPort, httpPort, database.url);
  const clean = THROUGHPUT_MESSAGES - Math.floor(THROUGHPUT_MESSAGES / 100);
  // Warm-up (first connections, JIT, caches), not counted.
  await sendAll(() => smtpPort, 50, 'warm');
  await waitFor(() => [...sink.delivered.keys()].filter((k) => k.startsWith('warm-')).length >= 50, 120_000);

  // Read before and after the pairs, outside what is timed.
  const countersBefore = await gatewayCounters(httpPort);

  // Interleaved pairs: whatever else the machine does weighs on both sides of a pair alike.
  const pairs: Array<{ bare: number; moat: number; smtp_accept: number; all_arrived: boolean }> = [];
  for (let round = 0; round < PAIRS; round++) {
    const baseline = await sendAll(() => barePort, THROUGHPUT_MESSAGES, `bare${round}`);
    const tag = `tp${round}-`;
    const started = performance.now();
    const sent = await sendAll(() => smtpPort, THROUGHPUT_MESSAGES, `tp${round}`);
    const arrived = await waitFor(
      () => [...sink.delivered.keys()].filter((k) => k.startsWith(tag)).length >= clean,
      600_000,
    );
    const pipelineSeconds = (performance.now() - started) / 1000;
    pairs.push({
      bare: perSecond(THROUGHPUT_MESSAGES, baseline.seconds),
      moat: perSecond(clean, pipelineSeconds),
      smtp_accept: perSecond(THROUGHPUT_MESSAGES, sent.seconds),
      all_arrived: arrived,
    });
  }
  await new Promise<void>((r) => bare.close(() => r()));
  const countersAfter = await gatewayCounters(httpPort);
  const peakMiB = peakRssMiB(moat);
  const load = os.loadavg().map((l) => Math.round(l * 100) / 100);

  // Crash: kill -9 a third of the way through, start again, let the client finish
  // (BENCH_CRASH_MESSAGES=0 skips it).
  const crashCheck = async () => {
    const crashTag = 'crash';
    let killed = false;
    let restart: Promise<void> | null = null;
    const sending = sendAll(
      () => smtpPort,
      CRASH_MESSAGES,
      crashTag,
      (n) => {
        if (!killed && n >= CRASH_MESSAGES / 3) {
          killed = true;
          moat.kill('SIGKILL');
          restart = new Promise((r) => setTimeout(r, 500)).then(async () => {
            moat = await startMoat(dataDir, sink.port, smtpPort, httpPort, database.url);
          });
        }
      },
    );
    const crashResult = await sending;
    await restart;
    const expectedClean = [...crashResult.outcomes.keys()].filter((i) => i % 100 !== 99);
    const expectedHeld = [...crashResult.outcomes.keys()].filter((i) => i % 100 === 99);
    await waitFor(
      () =>
        expectedClean.every((i) => sink.delivered.has(`${crashTag}-${i}@bench.test`)) &&
        expectedHeld.every((i) => sink.held.has(`Bench ${crashTag}-${i}`)),
      600_000,
    );
    // Late duplicates would arrive after the retry waits: give them time to show.
    await new Promise((r) => setTimeout(r, 15_000));
    const count = (i: number) =>
      i % 100 === 99
        ? (sink.held.get(`Bench ${crashTag}-${i}`) ?? 0)
        : (sink.delivered.get(`${crashTag}-${i}@bench.test`) ?? 0);
    const accepted = [...crashResult.outcomes].filter(([, o]) => o === 'accepted').map(([i]) => i);
    const ambiguous = [...crashResult.outcomes].filter(([, o]) => o === 'ambiguous').map(([i]) => i);
    return {
      messages: CRASH_MESSAGES,
      answered_250_once: accepted.length,
      ambiguous_retried: ambiguous.length,
      lost: [...accepted, ...ambiguous].filter((i) => count(i) === 0).length,
      twice_of_answered_250: accepted.filter((i) => count(i) > 1).length,
      twice_of_ambiguous: ambiguous.filter((i) => count(i) > 1).length,
      held_expected: expectedHeld.length,
    };
  };
  const crash = CRASH_MESSAGES > 0 ? await crashCheck() : null;
  const result = {
    machine: { cpus: os.cpus().length, node: process.version, load_average_1_5_15: load },
    database: database.url ? 'postgres' : 'pglite',
    throughput: {
      messages: THROUGHPUT_MESSAGES,
      concurrency: CONCURRENCY,
      pairs,
      all_arrived: pairs.every((p) => p.all_arrived),
      moat_messages_per_second: median(pairs.map((p) => p.moat)),
      moat_smtp_accept_per_second: median(pairs.map((p) => p.smtp_accept)),
      bare_smtp_server_per_second: median(pairs.map((p) => p.bare)),
      ratio_to_bare_smtp_server: Number(median(pairs.map((p) => p.moat / p.bare)).toFixed(3)),
      peak_rss_mib: peakMiB,
    },
    metrics: {
      gateway_messages_before: countersBefore,
      gateway_messages_after: countersAfter,
      gateway_messages_counted: sum(countersAfter) - sum(countersBefore),
    },
    crash,
  };
  console.log(JSON.stringify(result, null, 2));
  moat.kill('SIGTERM');
  await new Promise((r) => moat.once('exit', r));
  await sink.close();
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}
