/**
 * Whether the embedded database holds the event loop: the same heavy statement (a join over
 * 200,000 generated rows, a few hundred milliseconds of work) run on PGlite in this thread, as
 * Moat did before, and on PGlite in its worker thread (`db/pglite-remote.ts`), as Moat does now,
 * while a timer measures how late the event loop answers (a 5 ms timer's lateness).
 */
import { PGlite } from '@electric-sql/pglite';
import { RemotePglite } from '../apps/api/src/db/pglite-remote.ts';

const HEAVY = `select count(*) from generate_series(1, 200000) a join generate_series(1, 200000) b on a = b`;
const RUNS = Number(process.env.BENCH_LOOP_RUNS ?? 5);

async function measure(query: (sql: string) => Promise<unknown>) {
  await query(HEAVY); // warm
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
    await query(HEAVY);
    total += performance.now() - started;
    // Between statements the loop gets its turn, as it would between requests.
    await new Promise((r) => setTimeout(r, 20));
  }
  clearInterval(timer);
  late.sort((a, b) => a - b);
  return {
    statement_ms: Math.round(total / RUNS),
    loop_delay_max_ms: Math.round(late.at(-1) ?? 0),
    loop_delay_p99_ms: Math.round(late[Math.floor(late.length * 0.99)] ?? 0),
  };
}

export async function benchEventLoop() {
  const inThread = await PGlite.create();
  const onThread = await measure((sql) => inThread.query(sql));
  await inThread.close();
  const worker = await RemotePglite.create({ dataDir: null });
  const inWorker = await measure((sql) => worker.query(sql));
  await worker.close();
  const result = { runs: RUNS, pglite_on_main_thread: onThread, pglite_in_worker: inWorker };
  console.log(`| PGlite | statement | event loop late by, max | p99 |
|---|---|---|---|
| on the main thread (before) | ${onThread.statement_ms} ms | ${onThread.loop_delay_max_ms} ms | ${onThread.loop_delay_p99_ms} ms |
| in its worker thread (now) | ${inWorker.statement_ms} ms | ${inWorker.loop_delay_max_ms} ms | ${inWorker.loop_delay_p99_ms} ms |`);
  return result;
}
