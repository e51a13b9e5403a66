/**
 * Several Moat nodes on one PostgreSQL (issue 9, "Done means"), each started as `npm start` starts
 * it, relaying to one slow sink (1.5 s before it answers each message, counting what arrives by
 * Message-ID and by the node that brought it). BENCH_CLUSTER_MESSAGES (2,000) messages are sent
 * over the nodes in turn, each with its own Message-ID, by a pooled client per node that retries
 * whatever was not answered 250, as an MTA with several MX hosts would. Node C starts after a
 * third of them; node A is killed with SIGKILL after half and started again (same DATA_DIR and
 * environment) a few seconds later; node C is stopped with SIGTERM after four fifths. Every node
 * runs with Moat's default settings (the work lease is not set: 30 s, renewed every 10 s).
 * Reports:
 * - fail-over: the messages A held at the kill (claimed in memory, waiting for a relay connection
 *   or in DATA; messages being processed), and how long after the kill each was delivered by
 *   another node (or by A, back on its data folder); the same for what C held when it was told
 *   to stop, and what C left under lease when it exited (only what was in DATA);
 * - mail: answered 250, retried, delivered once, lost (answered 250, never delivered), duplicates,
 *   and how many duplicates the SMTP-inherent windows explain: a relay connection A had open at
 *   the kill on which the sink read a whole message but A never read the 250 (at most A's relay
 *   pool, 4), or a client attempt that broke after its data so the client sent it again;
 * - rows still `sending` (outbox) or `received` (inbound_messages) after the leases expired;
 * - throughput, first send to last first delivery (the slow relay is the ceiling: 4 connections
 *   per node, 1.5 s a message);
 * - over HTTP: a captcha fetched from A accepted by B (and refused on A when replayed), 40 wrong
 *   logins for one account alternating A and B from one address (throttled as one, cluster-wide),
 *   then the owner from another address signs in on both (a stranger locks nobody out).
 * Needs PostgreSQL on 127.0.0.1:5432 (BENCH_PG_ADMIN_URL), trust auth; makes and drops its own
 * database. Bounded: everything stops within 15 minutes, processes and database cleaned up.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import nodemailer, { type Transporter } from 'nodemailer';
import pg from 'pg';
import { SMTPServer } from 'smtp-server';
import { freePort } from './support.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const MESSAGES = Number(process.env.BENCH_CLUSTER_MESSAGES ?? 2_000);
/** Messages offered per second (0: as fast as the client goes): sending lasts long enough for C to join. */
const SEND_RATE = Number(process.env.BENCH_CLUSTER_RATE ?? 25);
const CONCURRENCY = 8;
const RELAY_DELAY_MS = 1_500;
/** Moat's relay pool per node when SMTP_RELAY_URL sets none (outbound.ts). */
const RELAY_POOL = 4;
/** Moat's default work lease (WORK_LEASE_SECONDS unset): what a dead node's claims wait at most. */
const LEASE_SECONDS = 30;
/** What the fail-over promises: everything a killed node held delivered within this of the kill. */
const FAIL_OVER_WITHIN_S = 60;
const RESTART_AFTER_MS = 5_000;
/** Attempts per message before the client gives up (a real MTA would keep trying for days). */
const MAX_ATTEMPTS = 25;
const DEADLINE_MS = 15 * 60_000;
/** Kept for the HTTP checks and the clean-up once the mail phase is over. */
const RESERVE_MS = 90_000;
/** The sink idle this long (nothing read, nothing pending) and the queues empty: mail has settled. */
const QUIET_MS = 10_000;
const PG_ADMIN_URL = process.env.BENCH_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN_EMAIL = 'admin@acme.test';
const ADMIN_PASSWORD = 'benchmark password';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------------------------------------
// Which process holds a TCP connection (Linux /proc): to tell the sink's connections apart by node.

interface TcpEntry {
  localPort: number;
  remotePort: number;
  inode: string;
}

function tcpEntries(): TcpEntry[] {
  const entries: TcpEntry[] = [];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      entries.push({
        localPort: Number.parseInt(f[1]!.split(':')[1]!, 16),
        remotePort: Number.parseInt(f[2]!.split(':')[1]!, 16),
        inode: f[9]!,
      });
    }
  }
  return entries;
}

/** Socket inodes of every process in the process group `pgid` (a node and any child it spawned). */
function socketInodesOfGroup(pgid: number): Set<string> {
  const inodes = new Set<string>();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    // After the command name (in parentheses, may hold spaces): state, ppid, pgrp.
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  }
  return inodes;
}

// ---------------------------------------------------------------------------------------------
// The relay: slow, counting every message read in full, and whether its 250 reached a live client.

interface RelayConnection {
  id: string;
  clientPort: number;
  node: string | null;
  closedAt: number | null;
  dataOpen: boolean;
}

interface Delivery {
  connection: RelayConnection;
  at: number;
  /** The 250 was written to a connection still open (false: the client died waiting for it). */
  answered: boolean | null;
}

async function startSink(ownerOf: (clientPort: number, sinkPort: number) => string | null) {
  const connections = new Map<string, RelayConnection>();
  const deliveries = new Map<string, Delivery[]>();
  let other = 0;
  let pending = 0;
  let lastActivity = Date.now();
  let port = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    // Recipient callouts (MAIL FROM:<>, RCPT, QUIT) are accepted like any other session.
    onConnect(session, callback) {
      connections.set(session.id, {
        id: session.id,
        clientPort: session.remotePort,
        node: ownerOf(session.remotePort, port),
        closedAt: null,
        dataOpen: false,
      });
      callback();
    },
    onClose(session) {
      const connection = connections.get(session.id);
      if (connection) connection.closedAt = Date.now();
    },
    onData(stream, session, callback) {
      const connection = connections.get(session.id)!;
      connection.dataOpen = true;
      pending += 1;
      lastActivity = Date.now();
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', () => {
        // The client went away mid-message: not delivered.
        connection.dataOpen = false;
        pending -= 1;
      });
      stream.on('end', () => {
        const head = Buffer.concat(chunks).subarray(0, 16_384).toString();
        const key = /^Message-ID:\s*<(cl-\d+)@bench\.test>/im.exec(head)?.[1];
        // Read in full: delivered, whatever becomes of the client before it reads the 250.
        const delivery: Delivery = { connection, at: Date.now(), answered: null };
        if (key) deliveries.set(key, [...(deliveries.get(key) ?? []), delivery]);
        else other += 1;
        setTimeout(() => {
          delivery.answered = connection.closedAt === null;
          connection.dataOpen = false;
          pending -= 1;
          lastActivity = Date.now();
          callback();
        }, RELAY_DELAY_MS);
      });
    },
  });
  port = await freePort();
  // The killed node's relay connections break: that is the test, not a fault of the relay.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    connections,
    deliveries,
    other: () => other,
    quietFor: () => (pending > 0 ? 0 : Date.now() - lastActivity),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        setTimeout(resolve, 5_000).unref();
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// Moat nodes.

interface MoatNode {
  name: string;
  port: number;
  smtpPort: number;
  dataDir: string;
  logFile: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess | null;
  /** Set before the bench itself kills or stops the node. */
  expectingExit: boolean;
  /** Exits the bench did not cause (another process's kill, a crash). */
  unexpectedExits: Array<{ at: number; code: number | null; signal: string | null }>;
}

function httpGetStatus(port: number, urlPath: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: urlPath, agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

/** Start a node as `npm start` does, in its own process group; resolves once HTTP and SMTP answer. */
async function startNode(node: MoatNode): Promise<number> {
  const started = performance.now();
  const log = fs.openSync(node.logFile, 'a');
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: node.env,
    detached: true,
    stdio: ['ignore', log, log],
  });
  fs.closeSync(log);
  node.child = child;
  node.expectingExit = false;
  child.once('exit', (code, signal) => {
    if (node.expectingExit) return;
    node.unexpectedExits.push({ at: Date.now(), code, signal });
    console.log(`[cluster] node ${node.name} exited unasked (code ${code}, signal ${signal})`);
  });
  const until = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const tail = fs.readFileSync(node.logFile, 'utf8').split('\n').slice(-15).join('\n');
      throw new Error(`node ${node.name} exited (${child.exitCode ?? child.signalCode}):\n${tail}`);
    }
    if (Date.now() > until) throw new Error(`node ${node.name} did not start within 180 s`);
    // SMTP listens after HTTP: both answering means the node is ready.
    if ((await httpGetStatus(node.port, '/healthz')) === 200 && (await portOpen(node.smtpPort)))
      return (performance.now() - started) / 1000;
    await sleep(200);
  }
}

const alive = (child: ChildProcess | null): child is ChildProcess =>
  child !== null && child.exitCode === null && child.signalCode === null;

function signalGroup(child: ChildProcess | null, signal: NodeJS.Signals): void {
  if (!child?.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Gone already.
  }
}

async function stopNode(node: MoatNode): Promise<void> {
  const child = node.child;
  if (!alive(child)) return;
  const exited = new Promise((r) => child.once('exit', r));
  node.expectingExit = true;
  signalGroup(child, 'SIGTERM');
  await Promise.race([exited, sleep(12_000)]);
  signalGroup(child, 'SIGKILL');
}

// ---------------------------------------------------------------------------------------------
// The sending MTA.

interface SendRecord {
  attempts: number;
  accepted: boolean;
  /** An attempt broke after its data may have been stored: the client cannot know, and resends. */
  ambiguous: boolean;
  refused5xx: boolean;
}

const BEFORE_DATA = ['CONN', 'EHLO', 'HELO', 'MAIL FROM', 'RCPT TO'];

function message(i: number) {
  return {
    from: 'Bob <bob@outside.test>',
    to: `user${i % 50}@acme.test`,
    subject: `Cluster ${i}`,
    messageId: `<cl-${i}@bench.test>`,
    text: `Message ${i} of the cluster benchmark.\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`,
  };
}

function pooledClient(node: MoatNode): Transporter {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: node.smtpPort,
    pool: true,
    maxConnections: 4,
    ignoreTLS: true,
  });
}

async function sendAll(options: {
  mx: () => MoatNode[];
  deadline: number;
  onAccepted: (count: number) => void;
}): Promise<{ records: SendRecord[]; seconds: number }> {
  const records: SendRecord[] = Array.from({ length: MESSAGES }, () => ({
    attempts: 0,
    accepted: false,
    ambiguous: false,
    refused5xx: false,
  }));
  const clients = new Map<string, Transporter>();
  const clientOf = (node: MoatNode) => {
    let client = clients.get(node.name);
    if (!client) {
      client = pooledClient(node);
      clients.set(node.name, client);
    }
    return client;
  };
  let next = 0;
  let accepted = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < MESSAGES && Date.now() < options.deadline) {
        const i = next++;
        if (SEND_RATE > 0) await sleep(started + (i / SEND_RATE) * 1000 - performance.now());
        const record = records[i]!;
        for (let attempt = 0; attempt < MAX_ATTEMPTS && Date.now() < options.deadline; attempt++) {
          // The nodes in turn; a retry goes to the next one (another MX).
          const nodes = options.mx();
          const node = nodes[(i + attempt) % nodes.length]!;
          const client = clientOf(node);
          record.attempts += 1;
          try {
            await client.sendMail(message(i));
            record.accepted = true;
            accepted += 1;
            options.onAccepted(accepted);
            break;
          } catch (error) {
            const e = error as { code?: string; command?: string; responseCode?: number };
            if (e.responseCode !== undefined && e.responseCode >= 500) {
              // A permanent refusal: a real MTA bounces it, it does not retry.
              record.refused5xx = true;
              break;
            }
            // Refused (4xx) or broken before DATA (nodemailer names the command: CONN for a
            // refused connection): nothing was stored. Anything else may have been.
            const refusedBeforeData =
              (e.responseCode !== undefined && e.responseCode >= 400) ||
              BEFORE_DATA.includes(e.command ?? '');
            if (!refusedBeforeData) record.ambiguous = true;
            if (e.responseCode === undefined && clients.get(node.name) === client) {
              // The connection broke (a node died): a fresh pool for that node.
              clients.delete(node.name);
              client.close();
            }
            await sleep(250);
          }
        }
      }
    }),
  );
  for (const client of clients.values()) client.close();
  return { records, seconds: (performance.now() - started) / 1000 };
}

// ---------------------------------------------------------------------------------------------
// HTTP checks across nodes.

interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}

function request(
  port: number,
  method: 'GET' | 'POST',
  urlPath: string,
  body: unknown,
  localAddress: string,
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: urlPath,
        // The client address the server sees: one loopback address per simulated client.
        localAddress,
        agent: false,
        timeout: 30_000,
        headers: {
          'x-requested-with': 'moat',
          ...(payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let parsed: Record<string, unknown> = {};
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
          } catch {
            // Not JSON: the status says enough.
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Fetch a challenge from the node on `port` and solve it, as the browser widget does. */
async function captchaToken(port: number, localAddress: string, strong = false): Promise<string> {
  const { body: challenge } = await request(
    port,
    'GET',
    `${AUTH_API.captchaChallenge}${strong ? '?strength=strong' : ''}`,
    undefined,
    localAddress,
  );
  const solution = await solveChallenge({
    challenge: challenge as unknown as Parameters<typeof solveChallenge>[0]['challenge'],
    deriveKey,
  });
  if (!solution) throw new Error('could not solve the captcha');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

const login = (port: number, email: string, password: string, token: string, localAddress: string) =>
  request(
    port,
    'POST',
    AUTH_API.login,
    { email, current_password: password, recaptcha_token: token },
    localAddress,
  );

async function httpChecks(a: MoatNode, b: MoatNode) {
  // 1. A captcha from A is good on B; replayed on A it is refused (spent, cluster-wide).
  // Its own client address, so the 40 logins below start with a fresh per-address budget.
  const token = await captchaToken(a.port, '127.0.0.2');
  const onB = await login(b.port, 'nobody@acme.test', 'wrong password', token, '127.0.0.2');
  const replayOnA = await login(a.port, 'nobody@acme.test', 'wrong password', token, '127.0.0.2');

  // 2. 40 wrong logins for one account from one address, alternating A and B, in parallel pairs.
  const statuses: number[] = [];
  const codes: string[] = [];
  for (let i = 0; i < 20; i++) {
    const pair = await Promise.all(
      [a, b].map(async (node) =>
        login(
          node.port,
          ADMIN_EMAIL,
          'wrong password',
          await captchaToken(node.port, '127.0.0.1'),
          '127.0.0.1',
        ),
      ),
    );
    for (const res of pair) {
      statuses.push(res.status);
      codes.push(String(res.body.code ?? res.status));
    }
  }
  // 3. The owner, from another address: a stranger's failures lock nobody out. The account has
  // seen many failures, so a browser without a device cookie is asked for the stronger captcha
  // first (as the login form does), on either node.
  const right: Record<string, { status: number; code: string; stronger_captcha_asked: boolean }> = {};
  for (const node of [a, b]) {
    let res = await login(
      node.port,
      ADMIN_EMAIL,
      ADMIN_PASSWORD,
      await captchaToken(node.port, '127.0.0.3'),
      '127.0.0.3',
    );
    const asked = res.body.code === 'captcha_required';
    if (asked) {
      res = await login(
        node.port,
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
        await captchaToken(node.port, '127.0.0.3', true),
        '127.0.0.3',
      );
    }
    right[node.name] = {
      status: res.status,
      code: String(res.body.code ?? 'signed_in'),
      stronger_captcha_asked: asked,
    };
  }
  const tally = (list: string[]) =>
    list.reduce<Record<string, number>>((acc, c) => {
      acc[c] = (acc[c] ?? 0) + 1;
      return acc;
    }, {});
  return {
    captcha_from_a_used_on_b: {
      status: onB.status,
      code: String(onB.body.code ?? 'none'),
      accepted: onB.body.code === 'invalid_credentials',
    },
    captcha_replayed_on_a: {
      status: replayOnA.status,
      code: String(replayOnA.body.code ?? 'none'),
      refused: replayOnA.body.code === 'captcha_failed',
    },
    wrong_logins_alternating_a_b: {
      attempts: statuses.length,
      answered_429: statuses.filter((s) => s === 429).length,
      codes: tally(codes),
    },
    owner_from_another_address: right,
    owner_signs_in_on_both: Object.values(right).every((r) => r.status === 200),
  };
}

// ---------------------------------------------------------------------------------------------
// The database.

async function statusCounts(db: pg.Pool, table: 'outbox' | 'inbound_messages') {
  const { rows } = await db.query<{ status: string; n: number; lease_expired: number }>(
    `select status, count(*)::int as n,
       count(*) filter (where lease_until is not null and lease_until < now())::int as lease_expired
     from ${table} group by status order by status`,
  );
  return rows;
}

/** Per bench message: how often the gateway stored it, and its outbox rows' claims and states. */
async function messageRows(db: pg.Pool) {
  const { rows } = await db.query<{
    mid: string;
    inbound_copies: number;
    outbox_claims: number;
    outbox_statuses: string;
    actions: string;
  }>(
    `select m.message_id_header as mid, count(distinct m.inbound_id)::int as inbound_copies,
       coalesce(sum(o.attempts), 0)::int as outbox_claims,
       coalesce(string_agg(distinct o.status, ','), '') as outbox_statuses,
       string_agg(distinct m.action, ',') as actions
     from mail_log m
     left join outbox o on o.idempotency_key = m.inbound_id::text || ':' || m.recipient
     where m.message_id_header like '%@bench.test%'
     group by m.message_id_header`,
  );
  const byKey = new Map<string, (typeof rows)[number]>();
  for (const row of rows) {
    const key = /(cl-\d+)@bench\.test/.exec(row.mid)?.[1];
    if (key) byKey.set(key, row);
  }
  return byKey;
}

/**
 * The bench's messages a node holds under lease now: mail it claimed for the relay (`sending`)
 * and inbound messages it claimed for processing, by message key (`cl-N`).
 */
async function claimsOf(db: pg.Pool, node: string) {
  const keyOf = (column: string) =>
    `substring(encode(substring(${column} from 1 for 4000), 'escape') from 'cl-[0-9]+')`;
  const { rows } = await db.query<{ key: string | null; kind: string }>(
    `select ${keyOf('raw')} as key, 'outbox' as kind from outbox
       where status = 'sending' and lease_owner like $1
     union all
     select ${keyOf('raw')} as key, 'inbound' as kind from inbound_messages
       where status = 'received' and lease_owner like $1`,
    [`bench-${node}:%`],
  );
  const keys = new Set<string>();
  let outbox = 0;
  let inbound = 0;
  for (const row of rows) {
    if (row.key) keys.add(row.key);
    if (row.kind === 'outbox') outbox += 1;
    else inbound += 1;
  }
  return { keys, outbox, inbound };
}

/** A node told to stop: what it held at SIGTERM (`at`) and left under its lease once it exited. */
interface StoppedNode {
  before: Awaited<ReturnType<typeof claimsOf>>;
  after: Awaited<ReturnType<typeof claimsOf>>;
  at: number;
}

/** Warnings and errors each node logged, by message. */
function logSummary(node: MoatNode): Record<string, number> {
  const counts: Record<string, number> = {};
  let text = '';
  try {
    text = fs.readFileSync(node.logFile, 'utf8');
  } catch {
    return counts;
  }
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string };
      const msg = (entry.msg ?? '?').slice(0, 80);
      counts[msg] = (counts[msg] ?? 0) + 1;
    } catch {
      // Not a log line.
    }
  }
  return counts;
}

// ---------------------------------------------------------------------------------------------

export async function benchCluster() {
  const t0 = Date.now();
  const deadline = t0 + DEADLINE_MS;
  const elapsed = () => round((Date.now() - t0) / 1000);
  const say = (text: string) => console.log(`[cluster ${elapsed()} s] ${text}`);
  const dbName = `moat_bench_cluster_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-cluster-'));
  const nodes: MoatNode[] = [];
  let db: pg.Pool | null = null;
  let sink: Awaited<ReturnType<typeof startSink>> | null = null;
  let keepLogs = true;
  let monitor: NodeJS.Timeout | undefined;

  // Last resorts: a crash, Ctrl-C or the deadline still stops every node.
  const killAll = () => {
    for (const node of nodes) signalGroup(node.child, 'SIGKILL');
  };
  const onSignal = () => {
    killAll();
    void (async () => {
      try {
        const c = new pg.Client({ connectionString: PG_ADMIN_URL });
        await c.connect();
        await c.query(`drop database if exists "${dbName}" with (force)`);
        await c.end();
      } finally {
        process.exit(130);
      }
    })();
  };
  const watchdog = setTimeout(() => {
    console.error(`[cluster] over ${DEADLINE_MS / 60_000} minutes: aborting`);
    onSignal();
  }, DEADLINE_MS + 60_000);
  process.on('exit', killAll);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  admin.on('error', () => {});
  try {
    await admin.connect();
    await admin.query(`create database "${dbName}"`);
    const databaseUrl = PG_ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);
    db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    // The drop at the end ends its connections from the server side: expected, not an error.
    db.on('error', () => {});

    const owner = (clientPort: number, sinkPort: number): string | null => {
      const entry = tcpEntries().find((e) => e.localPort === clientPort && e.remotePort === sinkPort);
      if (!entry) return null;
      for (const node of nodes)
        if (alive(node.child) && socketInodesOfGroup(node.child.pid!).has(entry.inode)) return node.name;
      return null;
    };
    sink = await startSink(owner);
    const secretKey = randomBytes(32).toString('hex');
    const webDist = path.join(ROOT, 'apps/web/dist');
    for (const name of ['A', 'B', 'C']) {
      const node: MoatNode = {
        name,
        port: await freePort(),
        smtpPort: await freePort(),
        dataDir: fs.mkdtempSync(path.join(work, `node-${name}-`)),
        logFile: path.join(work, `node-${name}.log`),
        env: {},
        child: null,
        expectingExit: false,
        unexpectedExits: [],
      };
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(node.port),
        SMTP_PORT: String(node.smtpPort),
        SUBMISSION_PORT: '0',
        DATA_DIR: node.dataDir,
        DATABASE_URL: databaseUrl,
        SECRET_KEY: secretKey,
        NODE_NAME: `bench-${name}`,
        LOG_LEVEL: 'warn',
        ADMIN_EMAIL,
        ADMIN_PASSWORD,
        SMTP_RELAY_URL: `smtp://127.0.0.1:${sink.port}`,
        SMTP_MAX_MESSAGES_PER_MINUTE: '1000000',
        SMTP_MAX_CONNECTIONS_PER_IP: '1000',
        CAPTCHA_DIFFICULTY: '10',
        // The API is measured, not the web app: serve the build there is, never rebuild it on start.
        WEB_DIST_DIR: webDist,
      };
      // Shared counters in the bench's own database (fresh each run), not a Redis other runs share.
      delete env.REDIS_URL;
      node.env = env;
      nodes.push(node);
    }
    const [A, B, C] = nodes as [MoatNode, MoatNode, MoatNode];
    const startup = await Promise.all([startNode(A), startNode(B)]);
    say(`nodes A and B up (${startup.map((s) => round(s)).join(' s, ')} s); sending ${MESSAGES} messages`);

    // ---- Mail under churn.
    const mx: MoatNode[] = [A, B];
    const events: Record<string, unknown> = {};
    let startingC: Promise<void> | null = null;
    let restartingA: Promise<void> | null = null;
    /** What A held the moment it was killed (read from the database right after the signal). */
    let heldAtKill: ReturnType<typeof claimsOf> | null = null;
    let killedAt = 0;
    let stoppingC: Promise<StoppedNode> | null = null;
    const killedConnections: RelayConnection[] = [];
    const firstSend = Date.now();
    const sendDeadline = deadline - RESERVE_MS - 120_000;
    // Progress every 10 s from the first send: deliveries, duplicates, the outbox's states.
    let peakSending = 0;
    let allSentAt: number | null = null;
    const timeline: string[] = [];
    let expected = MESSAGES;
    const progress = async () => {
      const out = await statusCounts(db!, 'outbox');
      const inbound = await statusCounts(db!, 'inbound_messages');
      const delivered = sink!.deliveries.size;
      const dups = [...sink!.deliveries.values()].filter((d) => d.length > 1).length;
      const sending = out.find((r) => r.status === 'sending')?.n ?? 0;
      peakSending = Math.max(peakSending, sending);
      const allSent = out.length > 0 && out.every((r) => r.status === 'sent');
      if (allSent && delivered >= expected && allSentAt === null) allSentAt = Date.now();
      timeline.push(
        `${Math.round(elapsed())} s: ${delivered} delivered, ${dups} duplicated, ${sending} sending`,
      );
      say(
        `delivered ${delivered}/${expected} (${dups} duplicated); outbox ${out.map((r) => `${r.status} ${r.n}`).join(', ')}; inbound ${inbound.map((r) => `${r.status} ${r.n}`).join(', ')}`,
      );
    };
    let monitoring: Promise<void> | null = null;
    monitor = setInterval(() => {
      monitoring ??= progress()
        .catch((error: Error) => say(`progress query failed: ${error.message}`))
        .finally(() => {
          monitoring = null;
        });
    }, 10_000);
    const sent = await sendAll({
      mx: () => mx,
      deadline: sendDeadline,
      onAccepted: (count) => {
        if (!startingC && count >= MESSAGES / 3) {
          events.c_started_after_accepted = count;
          events.c_started_at_s = elapsed();
          startingC = startNode(C).then(
            (seconds) => {
              events.c_ready_at_s = elapsed();
              events.c_startup_s = round(seconds);
              mx.push(C);
              say(`node C up after ${round(seconds)} s`);
            },
            (error: Error) => {
              events.c_error = error.message;
            },
          );
        }
        if (!restartingA && count >= MESSAGES / 2 && alive(A.child)) {
          // The relay connections A holds this instant, told by the kernel, matched to the sink's.
          const inodes = socketInodesOfGroup(A.child.pid!);
          const ports = new Set(
            tcpEntries()
              .filter((e) => e.remotePort === sink!.port && inodes.has(e.inode))
              .map((e) => e.localPort),
          );
          A.expectingExit = true;
          signalGroup(A.child, 'SIGKILL');
          killedAt = Date.now();
          heldAtKill = claimsOf(db!, 'A');
          for (const c of sink!.connections.values())
            if (c.closedAt === null && ports.has(c.clientPort)) killedConnections.push(c);
          events.killed = 'A';
          events.killed_after_accepted = count;
          events.killed_at_s = elapsed();
          events.relay_connections_of_a_at_kill = killedConnections.length;
          events.relay_connections_of_a_mid_data_at_kill = killedConnections.filter((c) => c.dataOpen).length;
          say(
            `killed A (kill -9) with ${killedConnections.length} relay connection(s) open, ${events.relay_connections_of_a_mid_data_at_kill} in DATA`,
          );
          restartingA = sleep(RESTART_AFTER_MS)
            .then(() => startNode(A))
            .then(
              (seconds) => {
                events.a_restarted_at_s = elapsed();
                events.a_restart_startup_s = round(seconds);
                say(`node A restarted (${round(seconds)} s to start)`);
              },
              (error: Error) => {
                events.a_restart_error = error.message;
              },
            );
        }
        // C is told to stop (SIGTERM) once it has work: it hands back what it has not started.
        if (!stoppingC && count >= (MESSAGES * 4) / 5 && mx.includes(C) && alive(C.child)) {
          mx.splice(mx.indexOf(C), 1);
          stoppingC = (async () => {
            const before = await claimsOf(db!, 'C');
            const at = Date.now();
            events.c_stopped_at_s = elapsed();
            await stopNode(C);
            events.c_exit_after_sigterm_s = round((Date.now() - at) / 1000);
            events.c_exit = C.child?.exitCode ?? C.child?.signalCode ?? null;
            const after = await claimsOf(db!, 'C');
            say(
              `node C stopped (SIGTERM) holding ${before.keys.size} message(s); exited after ${events.c_exit_after_sigterm_s} s leaving ${after.keys.size} under its lease`,
            );
            return { before, after, at };
          })();
        }
      },
    });
    const records = sent.records;
    say(`sending done in ${round(sent.seconds)} s`);
    await startingC;
    await restartingA;
    // Set in the send callbacks, which the compiler does not follow.
    const heldByA = (await heldAtKill) as Awaited<ReturnType<typeof claimsOf>> | null;
    const stoppedC = (await stoppingC) as StoppedNode | null;
    const lastChurn = Date.now();

    // ---- Until every message answered 250 has reached the sink and nothing moves any more.
    const acceptedKeys = records.flatMap((r, i) => (r.accepted ? [`cl-${i}`] : []));
    expected = acceptedKeys.length;
    const deliveredCount = () => acceptedKeys.filter((k) => sink!.deliveries.has(k)).length;
    const remaining = acceptedKeys.length - deliveredCount();
    const drainBudget =
      LEASE_SECONDS * 1000 + ((remaining * RELAY_DELAY_MS) / (RELAY_POOL * 2)) * 1.5 + 60_000;
    const waitUntil = Math.min(Date.now() + drainBudget, deadline - RESERVE_MS);
    let lastDelivery = firstSend;
    let settled = false;
    const queues = async () => {
      const { rows } = await db!.query<{ pending: number }>(
        `select (select count(*) from outbox where status in ('queued', 'sending', 'failed'))::int
           + (select count(*) from inbound_messages where status = 'received')::int as pending`,
      );
      return rows[0]!.pending;
    };
    for (;;) {
      const delivered = deliveredCount();
      if (
        delivered === acceptedKeys.length &&
        sink.quietFor() >= QUIET_MS &&
        Date.now() - lastChurn >= (LEASE_SECONDS + 5) * 1000 &&
        (await queues()) === 0
      ) {
        settled = true;
        break;
      }
      if (Date.now() > waitUntil) break;
      if (!nodes.some((n) => alive(n.child))) {
        say('every node is gone: nothing left to wait for');
        break;
      }
      await sleep(1_000);
    }
    let lastAnyDelivery = firstSend;
    for (const list of sink.deliveries.values()) {
      lastDelivery = Math.max(lastDelivery, list[0]!.at);
      lastAnyDelivery = Math.max(lastAnyDelivery, list[list.length - 1]!.at);
    }
    clearInterval(monitor);
    await monitoring;
    say(settled ? 'mail settled' : 'drain timed out');

    // ---- The figures.
    const outbox = await statusCounts(db, 'outbox');
    const inbound = await statusCounts(db, 'inbound_messages');
    const perMessage = await messageRows(db);
    const count = (key: string) => sink!.deliveries.get(key)?.length ?? 0;
    const lost = acceptedKeys.filter((k) => count(k) === 0);
    const duplicated = acceptedKeys.filter((k) => count(k) > 1);
    const killedIds = new Set(killedConnections.map((c) => c.id));
    const causeOf = (key: string) => {
      const list = sink!.deliveries.get(key) ?? [];
      const i = Number(key.slice(3));
      // The relay read it in full on a connection A had at the kill, and A never read the 250.
      const relayWindow = list.filter((d) => d.answered === false && killedIds.has(d.connection.id)).length;
      if (relayWindow >= list.length - 1) return 'relay_window';
      if (records[i]!.ambiguous && (perMessage.get(key)?.inbound_copies ?? 0) > 1) return 'inbound_window';
      return 'beyond_window';
    };
    const causes = duplicated.map((k) => ({ key: k, cause: causeOf(k) }));
    const beyond = causes.filter((c) => c.cause === 'beyond_window').map((c) => c.key);
    const describe = (key: string) => {
      const row = perMessage.get(key);
      const list = sink!.deliveries.get(key) ?? [];
      return {
        message_id: `<${key}@bench.test>`,
        client_attempts: records[Number(key.slice(3))]!.attempts,
        inbound_copies: row?.inbound_copies ?? 0,
        outbox_claims: row?.outbox_claims ?? 0,
        outbox_status: row?.outbox_statuses ?? 'none',
        mail_log_action: row?.actions ?? 'none',
        deliveries: list.map((d) => ({
          by: d.connection.node ?? '?',
          at_s: round((d.at - t0) / 1000),
          answered: d.answered,
        })),
      };
    };
    const deliveriesByNode: Record<string, number> = {};
    for (const list of sink.deliveries.values())
      for (const d of list) {
        const by = d.connection.node ?? '?';
        deliveriesByNode[by] = (deliveriesByNode[by] ?? 0) + 1;
      }
    // Who sent a duplicate first and who again (the second claimant).
    const beyondByNodes: Record<string, number> = {};
    const beyondExamples: string[] = [];
    for (const key of beyond) {
      const pair = (sink.deliveries.get(key) ?? []).map((d) => d.connection.node ?? '?').join('→');
      beyondByNodes[pair] = (beyondByNodes[pair] ?? 0) + 1;
      // Two examples of each pair of senders.
      if (beyondByNodes[pair] <= 2) beyondExamples.push(key);
    }
    const stuckSending = outbox.find((r) => r.status === 'sending')?.lease_expired ?? 0;
    const stuckReceived = inbound.find((r) => r.status === 'received')?.n ?? 0;
    const relayCeiling = (3 * RELAY_POOL) / (RELAY_DELAY_MS / 1000);
    const deliveredOnce = acceptedKeys.filter((k) => count(k) === 1).length;
    const uniqueDelivered = acceptedKeys.length - lost.length;

    /** How long after `from` each held message was first delivered (and answered), by whom. */
    const failOverOf = (keys: Set<string>, from: number) => {
      const delays: number[] = [];
      const byNode: Record<string, number> = {};
      let missing = 0;
      for (const key of keys) {
        const first = (sink!.deliveries.get(key) ?? []).find((d) => d.answered !== false);
        if (!first) {
          missing += 1;
          continue;
        }
        delays.push(Math.max(0, (first.at - from) / 1000));
        const by = first.connection.node ?? '?';
        byNode[by] = (byNode[by] ?? 0) + 1;
      }
      delays.sort((a, b) => a - b);
      return {
        held: keys.size,
        delivered_within_s: FAIL_OVER_WITHIN_S,
        delivered_in_time: delays.filter((d) => d <= FAIL_OVER_WITHIN_S).length,
        late: delays.filter((d) => d > FAIL_OVER_WITHIN_S).length,
        never_delivered: missing,
        median_s: delays.length ? round(delays[Math.floor(delays.length / 2)]!) : null,
        max_s: delays.length ? round(delays[delays.length - 1]!) : null,
        delivered_by: byNode,
      };
    };
    const failOver = {
      a_killed: heldByA
        ? {
            outbox_claims: heldByA.outbox,
            inbound_claims: heldByA.inbound,
            ...failOverOf(heldByA.keys, killedAt),
          }
        : null,
      c_stopped: stoppedC
        ? {
            outbox_claims_at_sigterm: stoppedC.before.outbox,
            inbound_claims_at_sigterm: stoppedC.before.inbound,
            exit_after_sigterm_s: events.c_exit_after_sigterm_s,
            exit: events.c_exit,
            left_under_lease_at_exit: stoppedC.after.keys.size,
            ...failOverOf(stoppedC.before.keys, stoppedC.at),
          }
        : null,
    };
    const failOverOk =
      failOver.a_killed !== null &&
      failOver.a_killed.held > 0 &&
      failOver.a_killed.delivered_in_time === failOver.a_killed.held &&
      (failOver.c_stopped === null || failOver.c_stopped.delivered_in_time === failOver.c_stopped.held);

    const unexpectedExits = nodes.flatMap((n) =>
      n.unexpectedExits.map((e) => ({
        node: n.name,
        at_s: round((e.at - t0) / 1000),
        code: e.code,
        signal: e.signal,
      })),
    );
    if (unexpectedExits.length)
      say(`nodes exited without the bench asking: ${JSON.stringify(unexpectedExits)}`);
    say('HTTP checks across nodes');
    let httpResult: Awaited<ReturnType<typeof httpChecks>> | { error: string };
    try {
      httpResult = await httpChecks(A, B);
    } catch (error) {
      httpResult = { error: (error as Error).message };
    }

    const result = {
      machine: { cpus: os.cpus().length, node: process.version },
      setup: {
        database: 'postgresql (fresh, dropped after)',
        shared_counters: 'postgresql',
        messages: MESSAGES,
        send_rate_per_second: SEND_RATE,
        client_concurrency: CONCURRENCY,
        relay_delay_ms: RELAY_DELAY_MS,
        relay_pool_per_node: RELAY_POOL,
        work_lease_seconds: `${LEASE_SECONDS} (Moat's default: WORK_LEASE_SECONDS not set)`,
        restart_after_ms: RESTART_AFTER_MS,
        a_b_startup_s: startup.map((s) => round(s)),
      },
      events: { ...events, unexpected_node_exits: unexpectedExits },
      fail_over: failOver,
      mail: {
        settled,
        answered_250: acceptedKeys.length,
        not_answered_250: records.filter((r) => !r.accepted).length,
        refused_5xx: records.filter((r) => r.refused5xx).length,
        retries: records.reduce((n, r) => n + Math.max(0, r.attempts - 1), 0),
        messages_retried: records.filter((r) => r.attempts > 1).length,
        ambiguous_retried: records.filter((r) => r.ambiguous).length,
        delivered_once: deliveredOnce,
        lost: lost.length,
        duplicates: duplicated.length,
        extra_deliveries: duplicated.reduce((n, k) => n + count(k) - 1, 0),
        duplicates_in_relay_window: causes.filter((c) => c.cause === 'relay_window').length,
        relay_window_bound: killedConnections.length,
        duplicates_in_inbound_window: causes.filter((c) => c.cause === 'inbound_window').length,
        duplicates_beyond_smtp_window: beyond.length,
        duplicates_beyond_window_by_senders: beyondByNodes,
        deliveries_by_node: deliveriesByNode,
        other_mail_at_sink: sink.other(),
      },
      throughput: {
        end_to_end_messages_per_second: round(uniqueDelivered / ((lastDelivery - firstSend) / 1000), 2),
        smtp_accept_per_second: round(acceptedKeys.length / sent.seconds),
        relay_ceiling_three_nodes_per_second: round(relayCeiling, 2),
        first_send_to_last_delivery_s: round((lastDelivery - firstSend) / 1000),
      },
      outbox_backlog: {
        // Rows claimed (status sending, under lease) versus connections that can carry them.
        peak_rows_sending: peakSending,
        relay_connections_cluster: 3 * RELAY_POOL,
        all_rows_sent_at_s: allSentAt === null ? null : round((allSentAt - t0) / 1000),
        last_delivery_of_any_copy_at_s: round((lastAnyDelivery - t0) / 1000),
        timeline,
      },
      database_after_lease_expiry: {
        outbox: Object.fromEntries(outbox.map((r) => [r.status, r.n])),
        inbound_messages: Object.fromEntries(inbound.map((r) => [r.status, r.n])),
        stuck_sending: stuckSending,
        stuck_received: stuckReceived,
      },
      http: httpResult,
      node_logs: Object.fromEntries(nodes.map((n) => [n.name, logSummary(n)])),
      evidence: {
        lost: lost.slice(0, 5).map(describe),
        duplicates_beyond_window: beyondExamples.map(describe),
        duplicates_in_window: causes
          .filter((c) => c.cause !== 'beyond_window')
          .slice(0, 4)
          .map((c) => describe(c.key)),
      },
      logs: '',
    };
    const clean =
      unexpectedExits.length === 0 &&
      settled &&
      failOverOk &&
      lost.length === 0 &&
      beyond.length === 0 &&
      stuckSending + stuckReceived === 0;
    keepLogs = !clean;
    result.logs = keepLogs ? work : 'removed (clean run)';
    console.log(
      [
        `cluster: ${acceptedKeys.length}/${MESSAGES} answered 250 (${result.mail.retries} retries), ` +
          `${deliveredOnce} delivered once, ${lost.length} lost, ${duplicated.length} duplicated ` +
          `(${result.mail.duplicates_in_relay_window} in the relay window ≤ ${killedConnections.length}, ` +
          `${result.mail.duplicates_in_inbound_window} in the inbound window, ${beyond.length} beyond)`,
        `stuck after lease expiry: ${stuckSending} sending, ${stuckReceived} received; ` +
          `${result.throughput.end_to_end_messages_per_second} msg/s end to end ` +
          `(relay ceiling ${result.throughput.relay_ceiling_three_nodes_per_second})`,
        `fail-over: A killed holding ${failOver.a_killed?.held ?? 0} message(s): ${failOver.a_killed?.delivered_in_time ?? 0} delivered within ${FAIL_OVER_WITHIN_S} s of the kill (max ${failOver.a_killed?.max_s ?? '-'} s); ` +
          `C stopped holding ${failOver.c_stopped?.held ?? 0}: exited after ${failOver.c_stopped?.exit_after_sigterm_s ?? '-'} s leaving ${failOver.c_stopped?.left_under_lease_at_exit ?? '-'} under lease, ` +
          `${failOver.c_stopped?.delivered_in_time ?? 0} delivered within ${FAIL_OVER_WITHIN_S} s (max ${failOver.c_stopped?.max_s ?? '-'} s)`,
        `http: ${JSON.stringify(httpResult)}`,
        keepLogs ? `node logs kept in ${work}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    );
    return result;
  } finally {
    clearTimeout(watchdog);
    clearInterval(monitor);
    await Promise.all(nodes.map((n) => stopNode(n)));
    process.off('exit', killAll);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await sink?.close();
    await db?.end();
    try {
      await admin.query(`drop database if exists "${dbName}" with (force)`);
    } catch (error) {
      console.error(`[cluster] could not drop database ${dbName}: ${(error as Error).message}`);
    }
    await admin.end().catch(() => {});
    for (const node of nodes) fs.rmSync(node.dataDir, { recursive: true, force: true });
    if (!keepLogs) fs.rmSync(work, { recursive: true, force: true });
  }
}
