// Builds what `npm start` serves: the web app (apps/web/dist, with its Brotli and gzip copies) and
// the compiled server (apps/api/dist), each only when missing or older than its sources. Run by
// `npm install` (the root's `prepare`, which skips it when the build tools were left out or
// MOAT_SKIP_BUILD is set), so the first `npm start` serves at once, and by `npm start` itself
// when something changed since. Says what it builds and how long it takes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, bundledPackagesChanged, SERVER_ENTRY, SERVER_SOURCES } from './build-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const WEB_INDEX = path.join(root, 'apps/web/dist/index.html');
const WEB_SOURCES = [
  'apps/web/src',
  'apps/web/build',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/public',
  'packages/contracts/src',
  // A dependency installed in another version (React, Mantine) is a new web app too.
  'package-lock.json',
];

/** Tests (name.test.ts, name.spec.tsx) are not part of either build. */
const TEST_FILE = /\.(test|spec)\.[cm]?[jt]sx?$/;

/**
 * The newest modification time under `dir` (itself included), tests left out: one stat per entry,
 * on every start.
 */
function newestIn(dir, newest) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.isFile() && TEST_FILE.test(entry.name)) continue;
    const full = `${dir}/${entry.name}`;
    const mtime = entry.isDirectory() ? newestIn(full, fs.statSync(full).mtimeMs) : fs.statSync(full).mtimeMs;
    if (mtime > newest) newest = mtime;
  }
  return newest;
}

/** A file's modification time, or the newest under a directory; 0 when it is missing. */
function newestMtime(target) {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  return stat.isDirectory() ? newestIn(target, stat.mtimeMs) : stat.mtimeMs;
}

const changedAt = (sources) => Math.max(...sources.map((s) => newestMtime(path.join(root, s))));

/** One line now and one every 5 s while `work` runs, then how long it took. */
async function withProgress(what, work) {
  const started = Date.now();
  const seconds = () => Math.round((Date.now() - started) / 1000);
  process.stdout.write(`${what}…\n`);
  const ticker = setInterval(
    () => process.stdout.write(`  still ${what.toLowerCase()} (${seconds()} s)\n`),
    5_000,
  );
  try {
    await work();
  } finally {
    clearInterval(ticker);
  }
  process.stdout.write(`  done in ${seconds()} s\n`);
}

function buildWeb() {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
      { cwd: path.join(root, 'apps/web'), stdio: 'inherit' },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`the web build failed (exit ${code})`)),
    );
  });
}

/** Builds whichever of the two is missing or older than its sources; `skipWeb` when served from elsewhere. */
export async function ensureBuilt({ skipWeb = false } = {}) {
  const web = newestMtime(WEB_INDEX);
  if (!skipWeb && changedAt(WEB_SOURCES) > web) {
    await withProgress(web ? 'Rebuilding the web app (it changed)' : 'Building the web app', buildWeb);
  }
  const server = newestMtime(SERVER_ENTRY);
  if (changedAt(SERVER_SOURCES) > server || (server && bundledPackagesChanged())) {
    await withProgress(server ? 'Compiling the server (it changed)' : 'Compiling the server', buildServer);
  }
  return SERVER_ENTRY;
}

/** At install (`prepare`): the build tools may be left out (`npm ci --omit=dev`), or the build not wanted. */
function skippedAtInstall() {
  if (!process.argv.includes('--install')) return null;
  if (process.env.MOAT_SKIP_BUILD) return 'MOAT_SKIP_BUILD is set';
  const missing = ['node_modules/vite/bin/vite.js', 'node_modules/esbuild/package.json'].filter(
    (tool) => !fs.existsSync(path.join(root, tool)),
  );
  return missing.length ? 'the build tools (dev dependencies) are not installed' : null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const skipped = skippedAtInstall();
  if (skipped) {
    process.stdout.write(`Not building Moat now: ${skipped}. \`npm start\` builds what is missing.\n`);
    process.exit(0);
  }
  try {
    await ensureBuilt();
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
