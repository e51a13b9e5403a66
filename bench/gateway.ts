/**
 * The mail gateway under load, as an MTA meets it: Moat started as `npm start` starts it (its own
 * process, embedded database), relaying to a local sink; messages sent over SMTP by a pooled
 * client. Reports:
 * - throughput: messages per second from the first send until every message reached the sink
 *   (the whole pipeline: SMTP in, durable store, parse, SPF/DKIM/DMARC, engines, policy, outbox,
 *   relay), against a bare smtp-server that accepts and drops, driven the same way in the same
 *   run; and the server's peak memory (VmHWM);
 * - crash: BENCH_CRASH_MESSAGES (10,000) messages, the server killed with SIGKILL part-way and
 *   started again on the same DATA_DIR while the client keeps retrying what was not answered 250.
 *   Every message answered 250 must end up delivered (or, for the EICAR ones, held with the
 *   recipient told) exactly once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';

const ROOT = path.resolve(import.meta.dirname, '..');
const THROUGHPUT_MESSAGES = Number(process.env.BENCH_GATEWAY_MESSAGES ?? 1_000);
const CRASH_MESSAGES = Number(process.env.BENCH_CRASH_MESSAGES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const EICAR = 'X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

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

async function startMoat(dataDir: string, relayPort: number, smtpPort: number) {
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts/start.mjs')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(await freePort()),
      SMTP_PORT: String(smtpPort),
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
  const barePort = await freePort();
  await new Promise<void>((r) => bare.listen(barePort, '127.0.0.1', r));
  const baseline = await sendAll(() => barePort, THROUGHPUT_MESSAGES, 'bare');
  await new Promise<void>((r) => bare.close(() => r()));

  // Throughput through the whole pipeline.
  const sink = await startSink();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-bench-gw-'));
  const smtpPort = await freePort();
  let moat = await startMoat(dataDir, sink.port, smtpPort);
  const clean = THROUGHPUT_MESSAGES - Math.floor(THROUGHPUT_MESSAGES / 100);
  const started = performance.now();
  const sent = await sendAll(() => smtpPort, THROUGHPUT_MESSAGES, 'tp');
  const arrived = await waitFor(
    () => [...sink.delivered.keys()].filter((k) => k.startsWith('tp-')).length >= clean,
    600_000,
  );
  const pipelineSeconds = (performance.now() - started) / 1000;
  const peakMiB = peakRssMiB(moat);

  // Crash: kill -9 a third of the way through, start again, let the client finish.
  const crashTag = 'crash';
  let killed = false;
  let restart: Promise<void> | null = null;
  const crash = sendAll(
    () => smtpPort,
    CRASH_MESSAGES,
    crashTag,
    (n) => {
      if (!killed && n >= CRASH_MESSAGES / 3) {
        killed = true;
        moat.kill('SIGKILL');
        restart = new Promise((r) => setTimeout(r, 500)).then(async () => {
          moat = await startMoat(dataDir, sink.port, smtpPort);
        });
      }
    },
  );
  const crashResult = await crash;
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
  const result = {
    machine: { cpus: os.cpus().length, node: process.version },
    throughput: {
      messages: THROUGHPUT_MESSAGES,
      concurrency: CONCURRENCY,
      all_arrived: arrived,
      moat_messages_per_second: Math.round((clean / pipelineSeconds) * 10) / 10,
      moat_smtp_accept_per_second: Math.round((THROUGHPUT_MESSAGES / sent.seconds) * 10) / 10,
      bare_smtp_server_per_second: Math.round((THROUGHPUT_MESSAGES / baseline.seconds) * 10) / 10,
      peak_rss_mib: peakMiB,
    },
    crash: {
      messages: CRASH_MESSAGES,
      answered_250_once: accepted.length,
      ambiguous_retried: ambiguous.length,
      lost: [...accepted, ...ambiguous].filter((i) => count(i) === 0).length,
      twice_of_answered_250: accepted.filter((i) => count(i) > 1).length,
      twice_of_ambiguous: ambiguous.filter((i) => count(i) > 1).length,
      held_expected: expectedHeld.length,
    },
  };
  console.log(JSON.stringify(result, null, 2));
  moat.kill('SIGTERM');
  await sink.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return result;
}
