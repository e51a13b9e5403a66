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

export default defineConfig(({ command }) => {
  // A new id for every production build; 'dev' for the dev server.
  const buildId =
    command === 'build' ? `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}` : 'dev';
  return {
    base: '/',
    plugins: [
      react(),
      mantineStyles({
        srcDir: path.join(import.meta.dirname, 'src'),
        coreDir: packageDir('@mantine/core'),
        extraRoots: [path.join(packageDir('@mantine/charts'), 'esm')],
      }),
      versionFile(buildId),
      precompress(),
    ],
    define: { __MOAT_BUILD_ID__: JSON.stringify(buildId) },
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
          codeSplitting: {
            groups: [
              // React and what every page of both bundles runs with it (the words, the plain
              // controls and frames, the HTTP client): one file, not a dozen small ones.
              {
                name: 'react',
                test: /node_modules[\\/](react|react-dom|scheduler)[\\/]/,
                priority: 10,
              },
            ],
          },
        },
      },
    },
    server: { proxy },
    preview: { proxy },
  };
});
