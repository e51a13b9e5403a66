// Compiles the API server (apps/api/src, with the contracts it imports) for `node` to run without
// a TypeScript loader, in apps/api/dist: server.cjs, which scripts/run-server.mjs runs with V8's
// code cache, and the workers as ES modules (the anti-malware scan, the authentication of large
// messages, the QR codes of attached pictures). The packages every start loads are compiled in
// (BUNDLED_PACKAGES); the others stay external (node_modules). Each source module's own directory
// and URL (import.meta.dirname / .url) keep pointing at its source directory, where its SQL
// migrations, workers and assets are. Run by `npm start` when the sources are newer than the build.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { V8_DEFAULTS_FILE } from './run-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apiDir = path.join(root, 'apps/api');
export const SERVER_DIST_DIR = path.join(apiDir, 'dist');
/** What the build reads: a change to any of these calls for a new build. */
export const SERVER_SOURCES = [
  'apps/api/src',
  'apps/api/package.json',
  'packages/contracts/src',
  'scripts/build-server.mjs',
];

/**
 * import.meta.dirname / .url of each source module as the source's; lib/build-info.ts says where
 * the build is. In the CommonJS server, the build's directory is `__dirname`.
 */
function ownLocation(format) {
  const buildDir = format === 'cjs' ? '__dirname' : 'import.meta.dirname';
  return {
    name: 'own-location',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path === path.join(apiDir, 'src/lib/build-info.ts')) {
          return { contents: `export const compiledDir = ${buildDir};`, loader: 'ts' };
        }
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!source.includes('import.meta.')) return { contents: source, loader: 'ts' };
        const fromBuild = path.relative(SERVER_DIST_DIR, args.path).split(path.sep).join('/');
        const sourceDir = `__moatPath.join(${buildDir}, ${JSON.stringify(path.posix.dirname(fromBuild))})`;
        const contents = source
          .replaceAll('import.meta.dirname', sourceDir)
          .replaceAll(
            'import.meta.url',
            `__moatUrl.pathToFileURL(__moatPath.join(${buildDir}, ${JSON.stringify(fromBuild)})).href`,
          );
        return { contents, loader: 'ts' };
      });
      // A package compiled into the CommonJS server finds its own files where it is installed.
      if (format !== 'cjs') return;
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
        const source = await fs.promises.readFile(args.path, 'utf8');
        if (!/\b__dirname\b/.test(source)) return undefined;
        const fromBuild = path.relative(SERVER_DIST_DIR, path.dirname(args.path)).split(path.sep).join('/');
        return {
          contents: source.replace(
            /\b__dirname\b/g,
            `__moatPath.join(__dirname, ${JSON.stringify(fromBuild)})`,
          ),
          loader: 'js',
        };
      });
    },
  };
}

/**
 * drizzle-orm's PGlite driver, compiled into the server, asks `@electric-sql/pglite` for its type
 * ids (the session's result parsers) and for the class it opens when given no client. Moat gives it
 * one (db/pglite-remote.ts: PGlite runs in its worker thread), so the server's main thread takes the
 * ids, read from the installed package at build time, instead of loading the package's 500 KB.
 */
function pgliteTypesOnly() {
  return {
    name: 'pglite-types-only',
    setup(build) {
      build.onResolve({ filter: /^@electric-sql\/pglite$/ }, (args) =>
        /[\\/]node_modules[\\/]drizzle-orm[\\/]/.test(args.importer)
          ? { path: 'pglite-types', namespace: 'moat-pglite' }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: 'moat-pglite' }, async () => {
        const { types } = await import('@electric-sql/pglite');
        return {
          contents: `export const types = ${JSON.stringify(types)};
export class PGlite {
  constructor() {
    throw new Error('PGlite runs in its worker thread (db/pglite-worker.mjs), not in the server');
  }
}`,
          loader: 'js',
        };
      });
    },
  };
}

/**
 * Packages compiled into server.cjs rather than loaded from node_modules at start: plain
 * JavaScript loaded on every start. One file to read, from V8's code cache, instead of hundreds of
 * modules to find, read, scan and compile (`npm run bench -- startup`); a package's own files are
 * still found beside it (its `__dirname`, `ownLocation`). Packages with native code or WebAssembly
 * (PGlite, argon2) and those loaded on first use (`packageOnFirstUse`) stay in node_modules.
 */
const BUNDLED_PACKAGES = [
  'zod',
  'fastify',
  'fastify-plugin',
  'fastify-type-provider-zod',
  'drizzle-orm',
  '@fastify/cookie',
  '@fastify/rate-limit',
  'prom-client',
  'otpauth',
  'pino',
  'pg',
  'qrcode',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@fastify/busboy',
  '@fastify/static',
  'smtp-server',
  'helmet',
  'fflate',
  '@xmldom/xmldom',
  'altcha-lib',
  'nodemailer',
];

/** Where the build notes the versions of the packages it compiled in. */
const BUNDLED_VERSIONS_FILE = path.join(SERVER_DIST_DIR, 'bundled-packages.json');

/** The installed versions of BUNDLED_PACKAGES, as the build notes them. */
function installedVersions() {
  const versions = {};
  for (const name of BUNDLED_PACKAGES) {
    const manifest = [root, apiDir]
      .map((dir) => path.join(dir, 'node_modules', name, 'package.json'))
      .find((file) => fs.existsSync(file));
    versions[name] = manifest ? JSON.parse(fs.readFileSync(manifest, 'utf8')).version : null;
  }
  return `${JSON.stringify(versions, null, 2)}\n`;
}

/** npm rewrites this whenever it changes node_modules (its "hidden lockfile"). */
const NPM_HIDDEN_LOCKFILE = path.join(root, 'node_modules/.package-lock.json');

/**
 * Whether a package compiled into the build has been updated (or removed) since. Asked on every
 * start: when npm has not touched node_modules since the build, no package's manifest is read.
 */
export function bundledPackagesChanged() {
  const noted = fs.statSync(BUNDLED_VERSIONS_FILE, { throwIfNoEntry: false });
  if (!noted) return true;
  const installed = fs.statSync(NPM_HIDDEN_LOCKFILE, { throwIfNoEntry: false });
  if (installed && installed.mtimeMs < noted.mtimeMs) return false;
  if (fs.readFileSync(BUNDLED_VERSIONS_FILE, 'utf8') !== installedVersions()) return true;
  // The same versions (npm wrote its lockfile after the build, at install): noted as checked now.
  try {
    const now = new Date();
    fs.utimesSync(BUNDLED_VERSIONS_FILE, now, now);
  } catch {
    // A read-only installation checks the versions on every start, as it did before.
  }
  return false;
}

/**
 * V8's defaults that scripts/run-server.mjs changes while the server starts, read from the Node
 * that builds (`--v8-options`), so it can put them back; noted with that V8's version.
 */
function noteV8Defaults() {
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  const interruptBudget = Number(/--interrupt-budget=(\d+)/.exec(options)?.[1]);
  const noted = Number.isInteger(interruptBudget) ? { v8: process.versions.v8, interruptBudget } : {};
  fs.writeFileSync(path.join(SERVER_DIST_DIR, V8_DEFAULTS_FILE), `${JSON.stringify(noted, null, 2)}\n`);
}

/** The compiled server, run by scripts/run-server.mjs. */
export const SERVER_ENTRY = path.join(SERVER_DIST_DIR, 'server.cjs');

export async function buildServer() {
  const esbuild = await import('esbuild');
  const packageJson = JSON.parse(fs.readFileSync(path.join(apiDir, 'package.json'), 'utf8'));
  const external = Object.keys(packageJson.dependencies).filter(
    (name) => !name.startsWith('@moat/') && !BUNDLED_PACKAGES.includes(name),
  );
  const common = {
    outdir: SERVER_DIST_DIR,
    bundle: true,
    splitting: false,
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    // Packages load from node_modules as they are; pg's optional native binding is not installed.
    external: [...external, 'pg-native'],
    logLevel: 'warning',
  };
  // The server as one CommonJS script: V8 keeps a code cache only for scripts (run-server.mjs).
  await esbuild.build({
    ...common,
    entryPoints: { server: path.join(apiDir, 'src/main.ts') },
    outExtension: { '.js': '.cjs' },
    format: 'cjs',
    banner: { js: "const __moatPath = require('node:path');const __moatUrl = require('node:url');" },
    plugins: [ownLocation('cjs'), pgliteTypesOnly()],
  });
  await esbuild.build({
    ...common,
    entryPoints: {
      'anti-malware.worker': path.join(apiDir, 'src/engines/anti-malware.worker.ts'),
      'auth.worker': path.join(apiDir, 'src/mail/gateway/auth.worker.ts'),
      'lures.worker': path.join(apiDir, 'src/engines/lures/lures.worker.ts'),
      'report.worker': path.join(apiDir, 'src/modules/dmarc/report.worker.ts'),
    },
    outExtension: { '.js': '.mjs' },
    format: 'esm',
    // `require` for the CommonJS packages compiled in (their calls of Node's own modules).
    banner: {
      js: "import __moatPath from 'node:path';import __moatUrl from 'node:url';import { createRequire as __moatCreateRequire } from 'node:module';const require = __moatCreateRequire(import.meta.url);",
    },
    plugins: [ownLocation('esm')],
  });
  // What an earlier build left: its entry (server.mjs before the code cache) and code cache.
  for (const stale of ['server.mjs', 'server.mjs.map', 'server.cjs.cache']) {
    fs.rmSync(path.join(SERVER_DIST_DIR, stale), { force: true });
  }
  fs.writeFileSync(BUNDLED_VERSIONS_FILE, installedVersions());
  noteV8Defaults();
  // esbuild's service process is not needed once the build is done.
  await esbuild.stop();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildServer();
