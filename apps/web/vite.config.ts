import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { mantineStyles } from './build/mantine-styles.ts';
import { precompress } from './build/precompress.ts';

const require = createRequire(import.meta.url);
/** An installed package's folder (Mantine's packages export no `package.json`). */
const packageDir = (name: string) => {
  const entry = require.resolve(name);
  return entry.slice(
    0,
    entry.lastIndexOf(`${path.sep}node_modules${path.sep}`) +
      `${path.sep}node_modules${path.sep}${name}`.length,
  );
};

/** Where `npm start` serves the API; the dev server forwards API and health calls there. */
const API_ORIGIN = 'http://127.0.0.1:8080';
const proxy = { '/api': API_ORIGIN, '/healthz': API_ORIGIN, '/readyz': API_ORIGIN };

/**
 * Writes `version.json` (`{"ui2_version": "<build id>"}`) into the root of the build. The API
 * answers it as `version_info.ui2_version`; a running page whose `__MOAT_BUILD_ID__` differs
 * knows a new version is out (SPEC §4 "Version check").
 */
function versionFile(buildId: string): Plugin {
  return {
    name: 'moat-version-file',
    apply: 'build',
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'version.json',
        source: `${JSON.stringify({ ui2_version: buildId })}\n`,
      });
    },
  };
}

/**
 * `react` and `react-dom` as Preact's compatibility layer, for the production build: React DOM
 * alone is about 60 KB gzip, Preact's layer about 5 KB. `react` itself is `src/react-on-preact`
 * (the layer plus React 19.2's `Activity`, which Mantine imports).
 */
const REACT_ON_PREACT = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react$/, replacement: path.join(import.meta.dirname, 'src/react-on-preact/react.ts') },
];

export default defineConfig(({ command }) => {
  // A new id for every production build; 'dev' for the dev server.
  const buildId =
    command === 'build' ? `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}` : 'dev';
  return {
    base: '/',
    plugins: [
      // The public pages' files are Preact (`@jsxImportSource preact`): no React Fast Refresh there.
      react({
        exclude: [
          /\/src\/public-main\.tsx$/,
          /\/src\/(features|areas)\/email-actions\/.*\.tsx$/,
          /\/src\/test\/render-public-page\.tsx$/,
        ],
      }),
      mantineStyles({
        srcDir: path.join(import.meta.dirname, 'src'),
        coreDir: packageDir('@mantine/core'),
        extraRoots: [path.join(packageDir('@mantine/charts'), 'esm')],
      }),
      versionFile(buildId),
      precompress(),
    ],
    define: { __MOAT_BUILD_ID__: JSON.stringify(buildId) },
    // The console's production build runs on Preact's React compatibility layer (issue 14's
    // dashboard budget); the dev server and the unit tests run it on React.
    resolve: command === 'build' ? { alias: REACT_ON_PREACT } : {},
    build: {
      outDir: 'dist',
      emptyOutDir: true,
      // MOAT_SOURCEMAP=1: with source maps, to see what each chunk holds.
      sourcemap: process.env.MOAT_SOURCEMAP === '1',
      assetsDir: 'assets',
      // Content-hashed names: the API caches everything under /assets for a year.
      rolldownOptions: {
        output: {
          entryFileNames: 'assets/[name]-[hash].js',
          chunkFileNames: 'assets/[name]-[hash].js',
          assetFileNames: 'assets/[name]-[hash][extname]',
        },
      },
    },
    server: { proxy },
    preview: { proxy },
  };
});
