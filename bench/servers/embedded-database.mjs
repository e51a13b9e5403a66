/**
 * The floor under Moat's start on its embedded database: Node, the embedded PostgreSQL (PGlite) in
 * its worker thread on an existing DATA_DIR, and a bare `node:http` answering /healthz once the
 * database is ready. Nothing of Moat's own; the V8 flags Moat's start sets (scripts/run-server.mjs).
 */
import http from 'node:http';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { setStartFlags } from '../../scripts/run-server.mjs';

setStartFlags();
const worker = new Worker(path.join(import.meta.dirname, '../../apps/api/src/db/pglite-worker.mjs'), {
  workerData: { dataDir: path.join(process.env.DATA_DIR, 'pgdata') },
});
await new Promise((resolve, reject) => {
  worker.on('message', (message) => message.ready && resolve());
  worker.once('error', reject);
});
const server = http.createServer((_request, response) => {
  response.setHeader('content-type', 'application/json');
  response.end('{"status":"ok"}');
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  worker.postMessage({ id: 1, op: 'close' });
  worker.on('message', (message) => message.id === 1 && process.exit(0));
});
