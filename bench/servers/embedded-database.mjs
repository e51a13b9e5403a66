/**
 * The floor under Moat's start on its embedded database: Node, the embedded PostgreSQL (PGlite) in
 * its worker thread on an existing DATA_DIR, and a bare `node:http` answering /healthz once the
 * database is ready. Nothing of Moat's own; the V8 flags Moat's start sets (scripts/run-server.mjs)
 * until it listens, or V8's own with V8_DEFAULTS=1. `GET /query?n=N` runs N catalog queries one
 * after another and answers how long they took, to compare the database's speed once started under
 * both.
 */
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { setStartFlags } from '../../scripts/run-server.mjs';

const endStartFlags = process.env.V8_DEFAULTS
  ? () => {}
  : setStartFlags(path.join(import.meta.dirname, '../../apps/api/dist'));
const worker = new Worker(path.join(import.meta.dirname, '../../apps/api/src/db/pglite-worker.mjs'), {
  workerData: { dataDir: path.join(process.env.DATA_DIR, 'pgdata') },
});
await new Promise((resolve, reject) => {
  worker.on('message', (message) => message.ready && resolve());
  worker.once('error', reject);
});

let nextId = 1;
const waiting = new Map();
worker.on('message', (message) => {
  if (message.id === undefined) return;
  waiting.get(message.id)?.(message);
  waiting.delete(message.id);
});
function ask(op, fields = {}) {
  const id = nextId++;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    worker.postMessage({ id, op, ...fields });
  });
}
/** A join, a filter, a window and a sort over the catalog: work of the kind Moat's pages ask for. */
const QUERY = `select n.nspname, c.relname, count(*) over () as total
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relname like $1 order by 2 limit 20`;

const server = http.createServer(async (request, response) => {
  const url = new URL(request.url, 'http://localhost');
  let body = '{"status":"ok"}';
  if (url.pathname === '/query') {
    const n = Number(url.searchParams.get('n') ?? 100);
    const started = performance.now();
    for (let i = 0; i < n; i++) await ask('query', { sql: QUERY, params: [`%${i % 7}%`] });
    body = JSON.stringify({ ms: performance.now() - started });
  }
  response.setHeader('content-type', 'application/json');
  response.end(body);
});
// Started, as Moat is once it listens: V8's own interrupt budget is back.
server.listen(Number(process.env.PORT), '127.0.0.1', () => setImmediate(endStartFlags));
process.on('SIGTERM', async () => {
  await ask('close');
  process.exit(0);
});
