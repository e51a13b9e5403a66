import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.ts';
import { sendUncompressed } from '../../plugins/external/compression.ts';

/**
 * The built web app: hashed files under /assets are cached for a year (their names change
 * with their content); everything else, index.html first, is revalidated on every load. Each
 * file goes out as the Brotli or gzip copy the build wrote beside it when the browser accepts one
 * (`preCompressed`), so nothing is compressed per request.
 */
export async function spaRoutes(app: FastifyInstance, opts: { distDir: string }) {
  const index = path.join(opts.distDir, 'index.html');
  if (!fs.existsSync(index)) {
    app.log.warn({ distDir: opts.distDir }, 'the web app is not built: run "npm run build"');
    app.get('/', { schema: { hide: true } }, async () => {
      throw new AppError(
        'service_unavailable',
        'The web app is not built yet: run "npm run build" and restart',
      );
    });
    return;
  }
  // Files the build did not compress (small ones, images) go out as they are: compressing them
  // per request would cost more than it saves.
  app.addHook('onRequest', (request, _reply, done) => {
    sendUncompressed(request);
    done();
  });
  await app.register(fastifyStatic, {
    root: opts.distDir,
    wildcard: true,
    index: ['index.html'],
    preCompressed: true,
    cacheControl: false,
    etag: true,
    lastModified: true,
    setHeaders(res, filePath) {
      const immutable = filePath.startsWith(path.join(opts.distDir, 'assets') + path.sep);
      res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      // The same URL answers differently by Accept-Encoding: caches must keep them apart.
      res.setHeader('vary', 'accept-encoding');
    },
  });
}
