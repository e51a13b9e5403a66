// The embedded PostgreSQL (PGlite) in a worker thread, so its statements (WebAssembly, run
// synchronously) never hold the server's event loop: HTTP and SMTP keep answering while it
// works. The main thread talks to it through `pglite-remote.ts`; each message is
// { id, op, ... } and each answer { id, result } or { id, error }. Plain JavaScript on purpose:
// it runs in a thread that has no TypeScript loader.
import { createRequire } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';

// PGlite's CommonJS build: one file, loaded with about two thirds of the CPU its ES modules take
// (a dozen chunks found, parsed and linked one by one), on every start (issue 14).
const require = createRequire(import.meta.url);
const { PGlite } = require('@electric-sql/pglite');
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm');

const { dataDir, loadDataDir, postgresqlconf } = workerData;
const pg = await PGlite.create(dataDir ?? undefined, {
  extensions: { pg_trgm },
  ...(loadDataDir ? { loadDataDir: new Blob([loadDataDir]) } : {}),
  ...(postgresqlconf ? { postgresqlconf } : {}),
});

/** Open transactions by id: the PGlite transaction and how to end it. */
const transactions = new Map();
/** How each open transaction ends (commit or rollback), awaited by `end`. */
const ends = new Map();
let nextTransaction = 1;

/** Drizzle asks for some types as the server's text (timestamps, intervals, numeric arrays). */
function optionsOf(message) {
  const parsers = {};
  for (const oid of message.textTypes ?? []) parsers[oid] = (value) => value;
  return { rowMode: message.rowMode ?? 'object', parsers };
}

function errorOf(error) {
  const out = { message: error?.message ?? String(error) };
  for (const key of [
    'name',
    'code',
    'detail',
    'hint',
    'severity',
    'constraint',
    'table',
    'column',
    'schema',
  ]) {
    if (error?.[key] !== undefined) out[key] = error[key];
  }
  return out;
}

function clientOf(message) {
  if (message.tx === undefined) return pg;
  const open = transactions.get(message.tx);
  if (!open) throw new Error(`transaction ${message.tx} is not open`);
  return open.tx;
}

const handlers = {
  async query(message) {
    const result = await clientOf(message).query(message.sql, message.params ?? [], optionsOf(message));
    return { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows };
  },
  async exec(message) {
    const results = await clientOf(message).exec(message.sql);
    return results.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows }));
  },
  begin() {
    const id = nextTransaction++;
    return new Promise((resolve, reject) => {
      let started = false;
      const done = pg.transaction(
        (tx) =>
          new Promise((commit, rollback) => {
            started = true;
            transactions.set(id, { tx, commit, rollback });
            resolve(id);
          }),
      );
      const settled = done.finally(() => transactions.delete(id));
      // Read by `end`; until then a rejection is not "unhandled".
      settled.catch(() => {});
      ends.set(id, settled);
      done.catch((error) => {
        if (started) return;
        ends.delete(id);
        reject(error);
      });
    });
  },
  async end(message) {
    const open = transactions.get(message.tx);
    const settled = ends.get(message.tx);
    ends.delete(message.tx);
    if (!open || !settled) throw new Error(`transaction ${message.tx} is not open`);
    if (message.commit) {
      open.commit();
      await settled;
    } else {
      open.rollback(new Error('rolled back'));
      await settled.catch(() => {});
    }
    return null;
  },
  async listen(message) {
    await pg.listen(message.channel, (payload) => {
      parentPort.postMessage({ notice: { channel: message.channel, payload } });
    });
    return null;
  },
  async dump() {
    const blob = await pg.dumpDataDir('none');
    return new Uint8Array(await blob.arrayBuffer());
  },
  async close() {
    await pg.close();
    return null;
  },
};

parentPort.on('message', async (message) => {
  try {
    const result = await handlers[message.op](message);
    parentPort.postMessage({ id: message.id, result });
  } catch (error) {
    parentPort.postMessage({ id: message.id, error: errorOf(error) });
  }
});
parentPort.postMessage({ ready: true });
