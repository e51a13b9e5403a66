import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `npm start` serves the API; the dev server forwards API and health calls there. */
const API_ORIGIN = 'http://127.0.0.1:8080';
const proxy = { '/api': API_ORIGIN, '/healthz': API_ORIGIN, '/readyz': API_ORIGIN };

export default defineConfig({
  base: '/',
  plugins: [react()],
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
});
