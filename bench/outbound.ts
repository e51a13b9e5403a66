/**
 * Outbound mail under load (issue 38), as a tenant's mail server meets it: Moat started as
 * `npm start` starts it (its own process; PostgreSQL, a fresh database created on PG_SERVER_URL
 * and dropped, and the embedded database, as BENCH_OUTBOUND_DATABASES says), submission
 * credentials made with `tenant:smtp-credential` and DKIM signing turned on with `tenant:dkim`
 * (so signing is paid for), the outbox delivering through OUTBOUND_RELAY_URL to a local sink.
 * Messages of about 5 KB (text and HTML) are submitted with SMTP AUTH by one pooled nodemailer
 * transport of BENCH_OUTBOUND_CONCURRENCY (8) connections. Reports:
 * - throughput: messages per second from the first send until the sink received every message
 *   answered 250 (the whole pipeline: submission, AUTH, the sender and message checks, the malware
 *   scan, DKIM signing, the outbox's transaction, relay), against a bare smtp-server with AUTH (any
 *   credential) that accepts and drops, driven by the same client the same way, in
 *   BENCH_OUTBOUND_PAIRS (3) interleaved pairs (bare, Moat, bare, Moat …) of
 *   BENCH_OUTBOUND_MESSAGES (1,000) after an untimed round of BENCH_OUTBOUND_WARM_UP (300): the
 *   median of the pairs' ratios;
 * - delivery: each message answered 250 must reach the sink exactly once (by Message-ID) and
 *   DKIM-signed by the tenant's domain; one lost, doubled or unsigned fails the run (exit code 1);
 * - where the time goes: CPU milliseconds per message of Moat (all its threads), of PostgreSQL's
 *   processes and of this process (client and sink) during Moat's runs, and of this process (client
 *   and bare server) during the bare runs; the machine's load average around the pairs; the
 *   server's peak memory (VmHWM).
 * Each timed run logs in with a credential of its own: one may submit 1,000 messages an hour, so
 * BENCH_OUTBOUND_MESSAGES above that is refused (451) part-way. Also: BENCH_OUTBOUND_SERVER=sources
 * runs apps/api/src/main.ts through tsx instead of the compiled server, BENCH_OUTBOUND_DKIM=off
 * leaves signing off, BENCH_OUTBOUND_RELAY_QUERY is added to OUTBOUND_RELAY_URL
 * (`maxConnections=8`), BENCH_OUTBOUND_PROFILE is a directory for the server's CPU profile
 * (written when it stops), BENCH_OUTBOUND_LOG_LEVEL its LOG_LEVEL (error).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { SMTPServer } from 'smtp-server';
import { freePort, freshPostgres, median, PG_SERVER_URL } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const MESSAGES = Number(process.env.BENCH_OUTBOUND_MESSAGES ?? 1_000);
const PAIRS = Number(process.env.BENCH_OUTBOUND_PAIRS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_OUTBOUND_CONCURRENCY ?? 8);
/** `postgres`, `embedded`, or both (in that order), comma-separated. */
const DATABASES = (process.env.BENCH_OUTBOUND_DATABASES ?? 'postgres,embedded')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean);
/** OUTBOUND_RELAY_URL's query (e.g. `maxConnections=8`); unset: the deployment default. */
const RELAY_QUERY = process.env.BENCH_OUTBOUND_RELAY_QUERY ?? '';
/**
 * `compiled` (the default): the server as `npm start` runs it (scripts/start.mjs, the compiled
 * server from V8's code cache); `sources`: apps/api/src/main.ts through tsx, the same code uncompiled.
 */
const SERVER = process.env.BENCH_OUTBOUND_SERVER ?? 'compiled';
/** `on` (the default): the tenant's domain DKIM-signs (`tenant:dkim --enable`); `off`: it does not. */
const DKIM = (process.env.BENCH_OUTBOUND_DKIM ?? 'on') !== 'off';
const DOMAIN = 'bench.example';
/** Every node of one database shares the key (any fixed value serves a benchmark). */
const SECRET = 'c'.repeat(64);
/** Messages of the untimed first round (to Moat and to the bare server): JIT, first connections, caches. */
const WARM_UP = Number(process.env.BENCH_OUTBOUND_WARM_UP ?? 300);
/** After the last expected message arrived, how long a second copy is given to show. */
const DUPLICATE_GRACE_MS = 2_000;

const perSecond = (count: number, seconds: number) => Math.round((count / seconds) * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The next hop: each message's first arrival time, its copies, and whether it was DKIM-signed. */
async function startSink() {
  const arrivals = new Map<string, { first: number; copies: number; signed: boolean }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    size: 50 * 1024 * 1024,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const at = performance.now();
        const raw = Buffer.concat(chunks);
        const end = raw.indexOf('\r\n\r\n');
        const head = raw
          .subarray(0, end === -1 ? 16_384 : end)
          .toString('latin1')
          .replace(/\r\n[ \t]+/g, ' ');
        const id = /^Message-ID:\s*<bench-([^>]+)>/im.exec(head)?.[1];
        if (id) {
          const signed = new RegExp(`^DKIM-Signature:.*\\bd=${DOMAIN.replace('.', '\\.')};`, 'im').test(head);
          const seen = arrivals.get(id);
          if (seen) seen.copies += 1;
          else arrivals.set(id, { first: at, copies: 1, signed });
        }
        callback();
      });
    },
  });
  server.on('error', () => {});
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    arrivals,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
type Sink = Awaited<ReturnType<typeof startSink>>;

/** The baseline: a bare smtp-server that takes any AUTH login, accepts and drops. */
async function startBare() {
  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => callback());
    },
  });
  server.on('error', () => {});
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface Ports {
  http: number;
  smtp: number;
  submission: number;
}

function moatEnv(dataDir: string, ports: Ports, sinkPort: number, databaseUrl: string | undefined) {
  return {
    ...process.env,
    NODE_ENV: 'production',
    WEB_DIST_DIR: path.join(dataDir, 'no-web'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    SECRET_KEY: SECRET,
    PORT: String(ports.http),
    SMTP_PORT: String(ports.smtp),
    SUBMISSION_PORT: String(ports.submission),
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.BENCH_OUTBOUND_LOG_LEVEL ?? 'error',
    ADMIN_EMAIL: `admin@${DOMAIN}`,
    ADMIN_PASSWORD: 'benchmark password',
    OUTBOUND_RELAY_URL: `smtp://127.0.0.1:${sinkPort}${RELAY_QUERY ? `?${RELAY_QUERY}` : ''}`,
  };
}

const portOpen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

async function startMoat(env: NodeJS.ProcessEnv, ports: Ports) {
  // The server as `npm start` runs it (scripts/start.mjs, the compiled server), without the web app.
  const profile = process.env.BENCH_OUTBOUND_PROFILE
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_OUTBOUND_PROFILE]
    : [];
  const entry = SERVER === 'sources' ? ['--import', 'tsx', 'apps/api/src/main.ts'] : ['scripts/start.mjs'];
  const child = spawn(process.execPath, [...profile, ...entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its last lines of log (LOG_LEVEL=error: errors only), to say why when something fails.
  const log: string[] = [];
  const keep = (chunk: Buffer) => {
    log.push(
      ...chunk
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((line) => line.slice(0, 600)),
    );
    log.splice(0, Math.max(0, log.length - 8));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  // The HTTP port opens last, after the submission port (and the CLI's control file).
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Moat exited with ${child.exitCode}:\n${log.join('\n')}`);
    if ((await portOpen(ports.http)) && (await portOpen(ports.submission))) return { child, log };
    await sleep(100);
  }
}

/** The code measured: the commit, and the server's files changed since (another engineer's work). */
async function sourceState() {
  const git = async (...args: string[]) =>
    (await promisify(execFile)('git', args, { cwd: ROOT }).catch(() => ({ stdout: '' }))).stdout.trimEnd();
  const changed = await git('status', '--porcelain', '--', 'apps/api', 'packages', 'scripts');
  return {
    commit: await git('rev-parse', '--short', 'HEAD'),
    uncommitted_server_files: changed ? changed.split('\n').map((line) => line.slice(3)) : [],
  };
}

/** `npm run cli -- …` with the server's environment; its standard output. */
async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'apps/api/src/cli/main.ts', ...args],
    { cwd: ROOT, env, timeout: 120_000 },
  );
  return stdout;
}

/** Linux's USER_HZ: the unit of /proc/<pid>/stat's CPU times. */
const CLOCK_TICKS = 100;

/** CPU seconds (user and system, all threads) a process has used, from /proc; 0 when gone. */
function cpuSecondsOf(pid: number | string | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds of every PostgreSQL process on this host (its backends, the writer, the WAL writer …). */
function postgresCpuSeconds(): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += cpuSecondsOf(pid);
    } catch {}
  }
  return total;
}

/** Where the CPU went, so far: Moat, PostgreSQL, this process (the client, the sink, the bare server). */
function cpuNow(moat: ChildProcess, postgres: boolean) {
  const own = process.cpuUsage();
  return {
    moat: cpuSecondsOf(moat.pid),
    postgres: postgres ? postgresCpuSeconds() : 0,
    bench: (own.user + own.system) / 1e6,
  };
}

/** CPU milliseconds per message between two readings of `cpuNow`. */
function cpuPerMessage(from: ReturnType<typeof cpuNow>, to: ReturnType<typeof cpuNow>, messages: number) {
  const ms = (a: number, b: number) => Math.round(((b - a) * 1000 * 100) / messages) / 100;
  return {
    moat: ms(from.moat, to.moat),
    postgres: ms(from.postgres, to.postgres),
    client_and_sink: ms(from.bench, to.bench),
  };
}

function peakRssMiB(child: ChildProcess): number {
  try {
    const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Math.round(Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return 0;
  }
}

const TEXT = 'Please find the figures for this quarter below; reply with any questions. '.repeat(28);
const HTML = `<html><body><p>${'Please find the figures for this quarter below; <b>reply</b> with any questions. '.repeat(26)}</p></body></html>`;

/**
 * Five hundred people send: a person past 200 messages an hour is held as a compromised account
 * (outbound.service SENDER_MESSAGES_PER_HOUR), which a few senders of every run would be.
 */
function message(i: number, tag: string) {
  return {
    from: `Sender ${i % 500} <sender${i % 500}@${DOMAIN}>`,
    to: `person${i % 50}@customer${i % 7}.test`,
    subject: `Outbound ${tag}-${i}`,
    messageId: `<bench-${tag}-${i}@${DOMAIN}>`,
    text: `Message ${i} of the benchmark.\n${TEXT}`,
    html: HTML,
  };
}

type Outcome = 'accepted' | 'ambiguous';

/**
 * Send every message through one pooled transport, CONCURRENCY at a time, retrying until it is
 * answered 250. A refused login or a 4xx/5xx reply is a plain retry; a broken connection leaves the
 * message `ambiguous` (it may have been stored), and it is sent again as an MTA would.
 */
async function sendAll(port: number, auth: { user: string; pass: string }, count: number, tag: string) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    pool: true,
    maxConnections: CONCURRENCY,
    ignoreTLS: true,
    auth,
  });
  const outcomes = new Map<number, Outcome>();
  /** Attempts that failed: a login refused (EAUTH: sent again on a new connection), or other. */
  const retries = { login: 0, other: 0 };
  const errors: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        for (let attempt = 1; ; attempt++) {
          try {
            await transport.sendMail(message(i, tag));
            if (!outcomes.has(i)) outcomes.set(i, 'accepted');
            break;
          } catch (error) {
            const e = error as { code?: string; responseCode?: number; message?: string };
            const message = String(e.message ?? e).slice(0, 200);
            if (errors.length < 5 && !errors.includes(message)) errors.push(message);
            // A reply (4xx, 5xx) says it was not taken; a broken connection leaves it unknown.
            const refused = e.code === 'ECONNREFUSED' || e.code === 'EAUTH' || (e.responseCode ?? 0) >= 400;
            if (e.code === 'EAUTH') retries.login += 1;
            else retries.other += 1;
            if (!refused) outcomes.set(i, 'ambiguous');
            if (attempt >= 20) throw new Error(`message ${i} refused 20 times: ${e.message}`);
            await sleep(200);
          }
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  transport.close();
  return { outcomes, retries, errors, started, seconds };
}

async function waitFor(done: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!done() && Date.now() < until) await sleep(50);
  return done();
}

/** What the sink saw of one run's messages. */
function deliveryOf(sink: Sink, tag: string, outcomes: Map<number, Outcome>) {
  const arrived = (i: number) => sink.arrivals.get(`${tag}-${i}@${DOMAIN}`);
  const accepted = [...outcomes].filter(([, o]) => o === 'accepted').map(([i]) => i);
  const ambiguous = [...outcomes].filter(([, o]) => o === 'ambiguous').map(([i]) => i);
  const all = [...accepted, ...ambiguous];
  return {
    answered_250_first_try: accepted.length,
    retried: ambiguous.length,
    lost: all.filter((i) => !arrived(i)),
    twice_of_answered_250: accepted.filter((i) => (arrived(i)?.copies ?? 0) > 1).length,
    twice_of_retried: ambiguous.filter((i) => (arrived(i)?.copies ?? 0) > 1).length,
    unsigned: all.filter((i) => arrived(i) && !arrived(i)!.signed).length,
    /** When the last of them first arrived (performance.now()). */
    lastArrival: Math.max(...all.map((i) => arrived(i)?.first ?? Number.POSITIVE_INFINITY)),
  };
}

/** One database: Moat started on it, set up with the CLI, then the interleaved pairs. */
async function benchOn(kind: 'postgres' | 'embedded', bare: { port: number }, sink: Sink) {
  const database =
    kind === 'postgres'
      ? await freshPostgres('moat_bench_out', PG_SERVER_URL)
      : { url: undefined, drop: async () => {} };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-out-'));
  const ports = { http: await freePort(), smtp: await freePort(), submission: await freePort() };
  const env = moatEnv(dataDir, ports, sink.port, database.url);
  const setupStarted = performance.now();
  const { child: moat, log } = await startMoat(env, ports);
  try {
    const startupSeconds = (performance.now() - setupStarted) / 1000;
    // The first start made the tenant of ADMIN_EMAIL's domain; its credentials and signing key now.
    // One credential per run (the warm-up, each timed run): a credential may submit so many
    // messages an hour (1,000 by default), and the runs together send more.
    const credentials: Array<{ user: string; pass: string }> = [];
    for (let n = 0; n <= PAIRS; n++) {
      const made = await cli(env, 'tenant:smtp-credential', '--tenant', DOMAIN, '--label', `bench ${n}`);
      const user = /user name:\s*(\S+)/.exec(made)?.[1];
      const pass = /password:\s*(\S+)/.exec(made)?.[1];
      if (!user || !pass) throw new Error(`tenant:smtp-credential printed no credential:\n${made}`);
      credentials.push({ user, pass });
    }
    if (DKIM) {
      const dkim = await cli(env, 'tenant:dkim', '--tenant', DOMAIN, '--domain', DOMAIN, '--enable');
      if (!/signing on/.test(dkim)) throw new Error(`tenant:dkim did not turn signing on:\n${dkim}`);
    }

    // Warm-up (first connections, JIT, the signing key read and unsealed), not counted. A server
    // that read the keys before signing was on takes up to 30 s to see it: warm up until it signs.
    await sendAll(bare.port, credentials[0]!, WARM_UP, `warmbare${kind}`);
    let signing = false;
    for (let round = 0; round < 8 && !signing; round++) {
      const tag = `warm${kind}${round}`;
      const count = round === 0 ? WARM_UP : 20;
      const warm = await sendAll(ports.submission, credentials[0]!, count, tag).catch((error: Error) => {
        throw new Error(`Moat refused the warm-up messages (its log is below): ${error.message}`);
      });
      await waitFor(() => deliveryOf(sink, tag, warm.outcomes).lost.length === 0, 60_000);
      signing = !DKIM || deliveryOf(sink, tag, warm.outcomes).unsigned === 0;
      if (!signing) await sleep(5_000);
    }
    if (!signing) throw new Error('Moat did not DKIM-sign the warm-up messages');
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    const loadBefore = os.loadavg().map((l) => Math.round(l * 100) / 100);
    const pairs: Array<Record<string, unknown> & { bare: number; moat: number }> = [];
    for (let round = 0; round < PAIRS; round++) {
      const auth = credentials[round + 1]!;
      const bareCpu = cpuNow(moat, false);
      const baseline = await sendAll(bare.port, auth, MESSAGES, `bare${kind}${round}`);
      const bareCpuAfter = cpuNow(moat, false);
      const tag = `out${kind}${round}`;
      const moatCpu = cpuNow(moat, kind === 'postgres');
      const sent = await sendAll(ports.submission, auth, MESSAGES, tag);
      const arrived = await waitFor(() => deliveryOf(sink, tag, sent.outcomes).lost.length === 0, 300_000);
      const moatCpuAfter = cpuNow(moat, kind === 'postgres');
      const lastArrival = deliveryOf(sink, tag, sent.outcomes).lastArrival;
      // A second copy of any of them would come soon after: give it the time to show.
      await sleep(DUPLICATE_GRACE_MS);
      const { lastArrival: _, lost, ...delivery } = deliveryOf(sink, tag, sent.outcomes);
      const pipelineSeconds = (lastArrival - sent.started) / 1000;
      pairs.push({
        bare: perSecond(MESSAGES, baseline.seconds),
        moat: arrived ? perSecond(MESSAGES, pipelineSeconds) : 0,
        moat_submission_accept: perSecond(MESSAGES, sent.seconds),
        all_arrived: arrived,
        ...delivery,
        lost: lost.length,
        ...(lost.length > 0 ? { lost_examples: lost.slice(0, 10) } : {}),
        cpu_ms_per_message: cpuPerMessage(moatCpu, moatCpuAfter, MESSAGES),
        bare_cpu_ms_per_message: cpuPerMessage(bareCpu, bareCpuAfter, MESSAGES).client_and_sink,
        client_retries: sent.retries,
        ...(sent.errors.length > 0 ? { client_errors: sent.errors } : {}),
        ...(baseline.errors.length > 0 ? { bare_client_errors: baseline.errors } : {}),
      });
      console.log(`outbound ${kind} pair ${round + 1}/${PAIRS}: ${JSON.stringify(pairs.at(-1))}`);
    }
    const loadAfter = os.loadavg().map((l) => Math.round(l * 100) / 100);
    const ok = pairs.every(
      (p) => p.all_arrived && p.lost === 0 && p.twice_of_answered_250 === 0 && (!DKIM || p.unsigned === 0),
    );
    return {
      database: kind,
      ok,
      startup_seconds: Number(startupSeconds.toFixed(1)),
      setup_seconds: Number(setupSeconds.toFixed(1)),
      load_average_1_5_15_before: loadBefore,
      load_average_1_5_15_after: loadAfter,
      pairs,
      moat_messages_per_second: median(pairs.map((p) => p.moat)),
      /** CPU per message during Moat's runs (all its threads; PostgreSQL's processes; this process). */
      cpu_ms_per_message: Object.fromEntries(
        (['moat', 'postgres', 'client_and_sink'] as const).map((k) => [
          k,
          median(pairs.map((p) => (p.cpu_ms_per_message as Record<typeof k, number>)[k])),
        ]),
      ),
      bare_cpu_ms_per_message: median(pairs.map((p) => p.bare_cpu_ms_per_message as number)),
      moat_submission_accept_per_second: median(pairs.map((p) => p.moat_submission_accept as number)),
      bare_smtp_server_per_second: median(pairs.map((p) => p.bare)),
      ratio_to_bare_smtp_server: Number(median(pairs.map((p) => p.moat / p.bare)).toFixed(3)),
      peak_rss_mib: peakRssMiB(moat),
    };
  } catch (error) {
    console.error(`outbound (${kind}): the server's last log lines:\n${log.join('\n')}`);
    throw error;
  } finally {
    moat.kill('SIGTERM');
    await new Promise((r) => (moat.exitCode !== null ? r(null) : moat.once('exit', r)));
    await database.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchOutbound() {
  const started = performance.now();
  const source = await sourceState();
  const bare = await startBare();
  const sink = await startSink();
  const runs: Array<Awaited<ReturnType<typeof benchOn>>> = [];
  try {
    for (const kind of DATABASES) {
      if (kind !== 'postgres' && kind !== 'embedded') throw new Error(`BENCH_OUTBOUND_DATABASES: ${kind}?`);
      runs.push(await benchOn(kind, bare, sink));
    }
  } finally {
    await bare.close();
    await sink.close();
  }
  const postgres = runs.find((r) => r.database === 'postgres');
  const result = {
    machine: { cpus: os.cpus().length, node: process.version },
    source,
    messages: MESSAGES,
    /** One message as submitted (before the Received field and the DKIM signature). */
    message_bytes: (await new MailComposer(message(0, 'out')).compile().build()).length,
    concurrency: CONCURRENCY,
    server: SERVER === 'sources' ? 'sources (tsx apps/api/src/main.ts)' : 'compiled (npm start)',
    dkim_signing: DKIM,
    relay: `OUTBOUND_RELAY_URL=smtp://127.0.0.1:<sink>${RELAY_QUERY ? `?${RELAY_QUERY}` : ''}`,
    targets: {
      ratio_to_bare_smtp_server: 0.25,
      moat_messages_per_second_postgres: 100,
      met: postgres
        ? postgres.ok &&
          postgres.ratio_to_bare_smtp_server >= 0.25 &&
          postgres.moat_messages_per_second >= 100
        : null,
    },
    runs,
    seconds: Math.round((performance.now() - started) / 1000),
  };
  console.log(JSON.stringify(result, null, 2));
  if (runs.some((r) => !r.ok)) {
    console.error('outbound: a message answered 250 was lost, doubled or unsigned (see the pairs)');
    process.exitCode = 1;
  }
  return result;
}
