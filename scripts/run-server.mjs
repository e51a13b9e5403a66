// Runs the compiled server (apps/api/dist/server.cjs, scripts/build-server.mjs) in this process,
// with V8's code cache: the first start after a build keeps the machine code V8 compiled while
// starting (server.cjs.cache beside it), and later starts read it instead of parsing and compiling
// the five megabytes of JavaScript again (issue 14: about 0.17 CPU-s of every start).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * V8 optimises a WebAssembly function once it has run this many bytes of code (V8's default is
 * 1,800,000). The embedded PostgreSQL's start-up, and Moat's first queries, run much of its code a
 * few times over; at lower budgets V8 optimised its largest functions on every start (0.25 CPU-s at
 * the default, 0.12 at 180,000,000), code that then mostly never runs again. What stays hot is
 * still optimised, later: in `npm run bench -- startup` the CPU of a start and 1,200 queries is
 * 24 % lower, and the fourth round of 300 queries 13 % slower, than at the default.
 * Set before anything is compiled: V8's code cache holds only for the flags it was made with.
 */
const WASM_TIERING_BUDGET = 600_000_000;

/**
 * V8 optimises a JavaScript function once it has run about this many bytes of bytecode (V8's
 * default is 67,584 on Node 20). Until the server has started, 15 times as many: at the default,
 * V8 compiled some thirty functions with TurboFan during every start (schema definitions, the
 * router, the embedded database's file system), about 50 CPU-ms for code that mostly never runs
 * again (`npm run bench -- startup`). Once started, V8's own budget is back, so what stays hot is
 * optimised as usual.
 */
const START_INTERRUPT_BUDGET = 1_000_000;

/** Where the build notes V8's defaults that the start changes for a while (build-server.mjs). */
export const V8_DEFAULTS_FILE = 'v8-defaults.json';

/** An interrupt budget given on the command line or in NODE_OPTIONS is the operator's: kept. */
function operatorSetsInterruptBudget() {
  const given = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((option) => /^--interrupt[-_]budget/.test(option));
}

/** V8's own interrupt budget, as the build read it from this Node; null when it did not. */
function v8InterruptBudget(distDir) {
  try {
    const noted = JSON.parse(fs.readFileSync(path.join(distDir, V8_DEFAULTS_FILE), 'utf8'));
    return noted.v8 === process.versions.v8 && Number.isInteger(noted.interruptBudget)
      ? noted.interruptBudget
      : null;
  } catch {
    return null;
  }
}

/** The cache's first line: the script's size and time, so a rebuilt server never gets another's code. */
function cacheKey(file) {
  const stat = fs.statSync(file);
  return Buffer.from(`moat-code-cache ${stat.size} ${stat.mtimeMs}\n`);
}

function readCache(cacheFile, key) {
  let data;
  try {
    data = fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return data.subarray(0, key.length).equals(key) ? data.subarray(key.length) : undefined;
}

/** Written to a temporary file and renamed, so a start at the same moment never reads half of it. */
function writeCache(cacheFile, key, script) {
  const temporary = `${cacheFile}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, Buffer.concat([key, script.createCachedData()]));
    fs.renameSync(temporary, cacheFile);
  } catch {
    // A read-only installation starts without the cache, as it did before there was one.
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * The V8 flags of Moat's start, before anything is compiled; returns the way back to V8's own
 * interrupt budget, for once the server has started. Without the build's note of that budget for
 * this Node (another Node than the build's), or when the operator set it, it is left as it is.
 */
export function setStartFlags(distDir) {
  v8.setFlagsFromString(`--wasm-tiering-budget=${WASM_TIERING_BUDGET}`);
  const interruptBudget = v8InterruptBudget(distDir);
  if (interruptBudget === null || operatorSetsInterruptBudget()) return () => {};
  v8.setFlagsFromString(`--interrupt-budget=${START_INTERRUPT_BUDGET}`);
  return () => v8.setFlagsFromString(`--interrupt-budget=${interruptBudget}`);
}

/**
 * A script run from V8's code cache loses its own `import()` on Node 20 ("A dynamic import callback
 * was not specified"), so the server's packages loaded on first use come through this one, from
 * the API's own directory (apps/api/src/lib/import-package.mjs; `packageOnFirstUse`).
 */
function lendImport(file) {
  const lender = pathToFileURL(path.join(path.dirname(file), '../src/lib/import-package.mjs')).href;
  globalThis[Symbol.for('moat.importPackage')] = async (specifier) =>
    (await import(lender)).importPackage(specifier);
}

/**
 * Runs `file` as a CommonJS module of this process. Says whether V8 took the code cache; when it
 * had none or refused it, one is written once the server says it has started, and then V8's own
 * flags are back.
 */
export function runServer(file) {
  const endStartFlags = setStartFlags(path.dirname(file));
  lendImport(file);
  const cacheFile = `${file}.cache`;
  const key = cacheKey(file);
  const cachedData = readCache(cacheFile, key);
  const source = fs.readFileSync(file, 'utf8');
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    cachedData,
  });
  const usedCache = Boolean(cachedData) && !script.cachedDataRejected;
  process.once('moat:started', () =>
    setImmediate(() => {
      if (!usedCache) writeCache(cacheFile, key, script);
      // After the cache is written: it holds only for the flags it was made with.
      endStartFlags();
    }),
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(file), module, file, path.dirname(file));
  return { usedCache };
}
