/**
 * Whether heavy work holds the event loop, while a timer measures how late the loop answers (a
 * 5 ms timer's lateness):
 * - the embedded database: the same heavy statement (a join over 200,000 generated rows, a few
 *   hundred milliseconds of work) on PGlite in this thread, as Moat did before, and on PGlite in
 *   its worker thread (`db/pglite-remote.ts`), as Moat does now;
 * - the gateway's CPU work: SPF/DKIM/DMARC (mailauth) of a 10 MB message with a DKIM signature,
 *   whose body is hashed, on the main thread (as before) and on the processor's worker (as now for
 *   messages of 1 MiB or more); and the lookalike-domain check (edit distance) of a 253-character
 *   sender domain against 100 tenant domains, which stays on the main thread.
 */
import { PGlite } from '@electric-sql/pglite';
import { authenticate } from 'mailauth';
import { RemotePglite } from '../apps/api/src/db/pglite-remote.ts';
import { lookalikeOf } from '../apps/api/src/engines/anti-phishing.ts';
import { createWorkerPool } from '../apps/api/src/lib/worker-pool.ts';
import type { AuthInput } from '../apps/api/src/mail/gateway/authenticate.ts';

const HEAVY = `select count(*) from generate_series(1, 200000) a join generate_series(1, 200000) b on a = b`;
const RUNS = Number(process.env.BENCH_LOOP_RUNS ?? 5);

async function measure(work: () => Promise<unknown>) {
  await work(); // warm
  // A 5 ms timer, as an HTTP or SMTP answer would wait for its turn: how late each tick comes.
  const late: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    late.push(Math.max(0, now - last - 5));
    last = now;
  }, 5);
  let total = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await work();
    total += performance.now() - started;
    // Between statements the loop gets its turn, as it would between requests.
    await new Promise((r) => setTimeout(r, 20));
  }
  clearInterval(timer);
  late.sort((a, b) => a - b);
  return {
    work_ms: Math.round(total / RUNS),
    loop_delay_max_ms: Math.round(late.at(-1) ?? 0),
    loop_delay_p99_ms: Math.round(late[Math.floor(late.length * 0.99)] ?? 0),
  };
}

/** A 10 MB message with a DKIM signature over its body (the key lookup fails: no network here). */
function bigSignedMessage(): Buffer {
  const body = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.\r\n'.repeat(180_000);
  return Buffer.from(
    'From: a@example.com\r\nTo: b@example.org\r\nSubject: big\r\n' +
      'DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.com; s=sel; h=from:to:subject; bh=AAAA; b=AAAA\r\n' +
      `\r\n${body}`,
  );
}

export async function benchEventLoop() {
  const inThread = await PGlite.create();
  const onThread = await measure(() => inThread.query(HEAVY));
  await inThread.close();
  const worker = await RemotePglite.create({ dataDir: null });
  const inWorker = await measure(() => worker.query(HEAVY));
  await worker.close();

  const big = bigSignedMessage();
  const noDns = async () => {
    throw Object.assign(new Error('no DNS here'), { code: 'ENOTFOUND' });
  };
  const mailAuth = await measure(() =>
    authenticate(big, {
      ip: '192.0.2.1',
      helo: 'mx.example.com',
      sender: 'a@example.com',
      mta: 'moat',
      resolver: noDns,
    }),
  );
  // As the processor does for a message of 1 MiB or more: on its worker, DNS answered here.
  const authPool = createWorkerPool<{ raw: Uint8Array; auth: AuthInput }, unknown>({
    worker: 'auth.worker',
    besideUrl: new URL('../apps/api/src/mail/gateway/processor.ts', import.meta.url).href,
    serve: () => noDns(),
  });
  const mailAuthOffThread = await measure(() =>
    authPool.run({
      raw: big,
      auth: { ip: '192.0.2.1', helo: 'mx.example.com', sender: 'a@example.com', mta: 'moat' },
    }),
  );
  await authPool.close();
  const own = Array.from({ length: 100 }, (_, i) => `company-division-${i}-${'x'.repeat(40)}.example.com`);
  const longDomain = `${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(60)}.com`;
  const lookalike = await measure(async () => lookalikeOf(longDomain, own));

  const result = {
    runs: RUNS,
    pglite_on_main_thread: onThread,
    pglite_in_worker: inWorker,
    mailauth_10mb_signed_main_thread: mailAuth,
    mailauth_10mb_signed_worker: mailAuthOffThread,
    lookalike_253_chars_100_domains: lookalike,
  };
  const row = (name: string, m: typeof onThread) =>
    `| ${name} | ${m.work_ms} ms | ${m.loop_delay_max_ms} ms | ${m.loop_delay_p99_ms} ms |`;
  console.log(`| work | time | event loop late by, max | p99 |
|---|---|---|---|
${row('PGlite statement on the main thread (before)', onThread)}
${row('PGlite statement in its worker thread (now)', inWorker)}
${row('SPF/DKIM/DMARC of a 10 MB signed message on the main thread (before)', mailAuth)}
${row('the same on its worker thread (now, from 1 MiB)', mailAuthOffThread)}
${row('lookalike check, 253-character domain against 100 (main thread)', lookalike)}`);
  return result;
}
