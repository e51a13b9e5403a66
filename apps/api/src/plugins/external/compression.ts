import zlib from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** Smaller answers gain less from compression than it costs. */
export const COMPRESSION_THRESHOLD = 1024;
const READS = new Set(['GET', 'HEAD']);

/**
 * Large answers go out compressed, Brotli or gzip by the request's Accept-Encoding (issue 14).
 * The web app's files were compressed at build time and go out as they are. Answers that could
 * carry a secret next to something an attacker chose are never compressed, so their length tells
 * nothing (BREACH): answers to writes (sign-in, MFA set-up, recovery codes) and answers to a
 * request another site made. Compressed request bodies are not accepted (no decompression bombs).
 */
export const compressionPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', (request, _reply, done) => {
    if (!READS.has(request.method) || request.headers['sec-fetch-site'] === 'cross-site') {
      request.headers['x-no-compression'] = '1';
    }
    done();
  });
  await app.register(compress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESSION_THRESHOLD,
    encodings: ['br', 'gzip'],
    // Quality 4 and level 6: per request, speed matters more than the last few per cent.
    brotliOptions: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  });
});
