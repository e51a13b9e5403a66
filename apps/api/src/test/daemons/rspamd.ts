import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startDnsServer, type TestZone } from '../dns-server.ts';
import { freePorts } from '../ports.ts';

const RSPAMD = '/usr/bin/rspamd';
/** Bayes answers once each class has this many learns (Debian's default is 200). */
export const RSPAMD_BAYES_MIN_LEARNS = 3;
/**
 * rspamd compiles its Hyperscan databases (the TLD list alone takes ~10 s) into this directory;
 * shared between runs, so only the machine's first start pays for it.
 */
const HYPERSCAN_CACHE = path.join(os.tmpdir(), 'moat-rspamd-hyperscan');

export interface RspamdDaemon {
  /** The normal worker: `/checkv2`, `/ping`. */
  url: string;
  /** The controller worker: `/learnspam`, `/learnham`, `/history`. */
  controllerUrl: string;
  password: string;
  /** Where rspamd logs (a scan's line has `id: <Message-ID>`, `ip:`, `from:`, `rcpts:`). */
  logFile: string;
  /**
   * Messages in rspamd's learn cache (`learned_ids` in Redis). rspamd answers a learn before it has
   * written the message there: a second learn sent at once may be taken for a new one.
   */
  learnedCount(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Debian's rspamd (/usr/bin/rspamd, its rules and scores in /etc/rspamd) as a private daemon for
 * tests and benchmarks: Debian's configuration with a local layer in a temporary directory, a
 * normal worker and a password-protected controller on free loopback ports, no proxy or fuzzy
 * worker, and Bayes in Redis database `redisDb` (emptied at start and stop: it is this daemon's),
 * learning from `RSPAMD_BAYES_MIN_LEARNS` messages per class and never by itself. The machine is
 * offline: rspamd asks a local DNS server that answers from `zone` (MX and TXT) and NXDOMAIN for the
 * rest (no blocklist lists anything, no other name resolves), so no scan waits for a DNS timeout.
 */
export async function startRspamd(options: {
  redisDb: number;
  redisHost?: string;
  zone?: TestZone;
  /**
   * Without the modules that only ask the internet (DNS block lists, rspamd.com's phishing and
   * ASN zones): what SpamAssassin's local tests (spamd -L) are. For the offline benchmark.
   */
  offline?: boolean;
}): Promise<RspamdDaemon> {
  if (!fs.existsSync(RSPAMD)) {
    throw new Error(`${RSPAMD} is missing: install it with \`apt-get install -y rspamd\``);
  }
  const redisHost = options.redisHost ?? '127.0.0.1:6379';
  await withRedis(redisHost, options.redisDb, (redis) => redis.flushdb());
  const dns = await startDnsServer(options.zone ?? {});
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-rspamd-'));
  fs.mkdirSync(HYPERSCAN_CACHE, { recursive: true });
  const [normalPort, controllerPort] = (await freePorts(2)) as [number, number];
  const password = `test-${Math.random().toString(36).slice(2)}`;
  const logFile = path.join(dir, 'rspamd.log');
  writeConfig(dir, {
    normalPort,
    controllerPort,
    password,
    dns: dns.address,
    redisHost,
    redisDb: options.redisDb,
    offline: options.offline ?? false,
  });

  const vars = { LOCAL_CONFDIR: dir, DBDIR: path.join(dir, 'db'), RUNDIR: dir, LOGDIR: dir };
  fs.mkdirSync(vars.DBDIR);
  const child = spawn(
    RSPAMD,
    [
      '-f', // foreground: the child is the main process, stopped by its pid
      // Root may run rspamd's workers only when it says it means to (`-u`/`-g`, or --insecure).
      ...(process.getuid?.() === 0 ? ['--insecure'] : []),
      '-c',
      path.join(dir, 'rspamd.conf'),
      ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const url = `http://127.0.0.1:${normalPort}`;
  const controllerUrl = `http://127.0.0.1:${controllerPort}`;
  const stop = async () => {
    await stopProcess(child);
    await dns.close();
    fs.rmSync(dir, { recursive: true, force: true });
    // The Redis server is shared: nothing of this daemon's stays in it.
    await withRedis(redisHost, options.redisDb, (redis) => redis.flushdb()).catch(() => undefined);
  };
  try {
    await waitForPing([url, controllerUrl], child, 60_000);
  } catch (err) {
    const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-4_000) : '';
    await stop();
    throw new Error(`rspamd did not start: ${(err as Error).message}\n${stderr}\n${log}`);
  }
  const learnedCount = () => withRedis(redisHost, options.redisDb, (redis) => redis.hlen('learned_ids'));
  return { url, controllerUrl, password, logFile, learnedCount, stop };
}

function writeConfig(
  dir: string,
  o: {
    normalPort: number;
    controllerPort: number;
    password: string;
    dns: string;
    redisHost: string;
    redisDb: number;
    offline: boolean;
  },
) {
  const files: Record<string, string> = {
    // Debian's /etc/rspamd/rspamd.conf without its proxy and fuzzy workers, its sockets on loopback.
    'rspamd.conf': `
.include "$CONFDIR/common.conf"
options {
  pidfile = "$RUNDIR/rspamd.pid";
  .include "$CONFDIR/options.inc"
  .include(try=true; priority=1,duplicate=merge) "$LOCAL_CONFDIR/local.d/options.inc"
}
logging {
  type = "file";
  filename = "$LOGDIR/rspamd.log";
  .include "$CONFDIR/logging.inc"
}
worker "normal" {
  bind_socket = "127.0.0.1:${o.normalPort}";
  .include "$CONFDIR/worker-normal.inc"
  count = 1;
}
worker "controller" {
  bind_socket = "127.0.0.1:${o.controllerPort}";
  count = 1;
  password = "${o.password}";
  enable_password = "${o.password}";
}
`,
    'local.d/options.inc': `
dns {
  nameserver = ["${o.dns}"];
  timeout = 1s;
  retransmits = 1;
}
hs_cache_dir = "${HYPERSCAN_CACHE}/";
`,
    'local.d/classifier-bayes.conf': `
servers = "${o.redisHost}";
db = ${o.redisDb};
min_learns = ${RSPAMD_BAYES_MIN_LEARNS};
autolearn = false;
`,
    // The public fuzzy storage is on the internet.
    'local.d/fuzzy_check.conf': 'enabled = false;\n',
    'local.d/logging.inc': 'level = "notice";\n',
    ...(o.offline
      ? Object.fromEntries(
          ['rbl', 'phishing', 'asn', 'url_redirector', 'mx_check'].map((module) => [
            `local.d/${module}.conf`,
            'enabled = false;\n',
          ]),
        )
      : {}),
  };
  fs.mkdirSync(path.join(dir, 'local.d'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
}

async function withRedis<T>(hostPort: string, db: number, use: (redis: Redis) => Promise<T>): Promise<T> {
  const [host, port] = hostPort.split(':');
  const redis = new Redis({
    host,
    port: Number(port ?? 6379),
    db,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await redis.connect();
    return await use(redis);
  } finally {
    redis.disconnect();
  }
}

async function waitForPing(urls: string[], child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  const pending = new Set(urls);
  while (pending.size > 0) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`rspamd exited (${child.exitCode ?? child.signalCode})`);
    }
    if (Date.now() > deadline) throw new Error(`no answer to /ping in ${timeoutMs} ms`);
    for (const url of [...pending]) {
      const pong = await fetch(new URL('/ping', url), { signal: AbortSignal.timeout(1_000) })
        .then((res) => res.ok)
        .catch(() => false);
      if (pong) pending.delete(url);
    }
    if (pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** SIGTERM (rspamd stops its workers), SIGKILL if it has not exited within 5 s. */
async function stopProcess(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
