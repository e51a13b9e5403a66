import { randomBytes } from 'node:crypto';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { precompress } from './build/precompress.ts';

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
    plugins: [react(), versionFile(buildId), precompress()],
    define: { __MOAT_BUILD_ID__: JSON.stringify(buildId) },
    build: {
      outDir: 'dist',
      emptyOutDir: true,
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
