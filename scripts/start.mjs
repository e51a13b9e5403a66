// npm start: build the web app and the compiled server if either is missing or older than its
// sources, then run the server (API, SPA) in this process with plain `node`. Configuration comes
// from the environment (see README).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distIndex = path.join(root, 'apps/web/dist/index.html');
const sources = [
  'apps/web/src',
  'apps/web/index.html',
  'apps/web/vite.config.ts',
  'apps/web/public',
  'packages/contracts/src',
];

function newestMtime(target) {
  if (!fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target))
    newest = Math.max(newest, newestMtime(path.join(target, entry)));
  return newest;
}

const builtAt = fs.existsSync(distIndex) ? fs.statSync(distIndex).mtimeMs : 0;
const changedAt = Math.max(...sources.map((s) => newestMtime(path.join(root, s))));
if (!process.env.WEB_DIST_DIR && changedAt > builtAt) {
  process.stdout.write(
    builtAt ? 'The web app changed: rebuilding it…\n' : 'Building the web app (first start)…\n',
  );
  execFileSync(
    process.execPath,
    [path.join(root, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'],
    {
      cwd: path.join(root, 'apps/web'),
      stdio: 'inherit',
    },
  );
}

// The server, compiled from TypeScript once (about half a second) rather than at every start.
const { buildServer, SERVER_DIST_DIR, SERVER_SOURCES } = await import('./build-server.mjs');
const serverEntry = path.join(SERVER_DIST_DIR, 'server.mjs');
const serverBuiltAt = fs.existsSync(serverEntry) ? fs.statSync(serverEntry).mtimeMs : 0;
if (Math.max(...SERVER_SOURCES.map((s) => newestMtime(path.join(root, s)))) > serverBuiltAt) {
  process.stdout.write(
    serverBuiltAt ? 'The server changed: compiling it…\n' : 'Compiling the server (first start)…\n',
  );
  await buildServer();
}
await import(serverEntry);
