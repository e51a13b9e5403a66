import zlib from 'node:zlib';
import compress from '@fastify/compress';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** Smaller answers gain less from compression than it costs. */
export const COMPRESSION_THRESHOLD = 1024;
const READS = new Set(['GET', 'HEAD']);
/** Requests the page itself made (same-origin), or the user typed or bookmarked (none). */
const OWN_REQUESTS = new Set(['same-origin', 'none']);

/** A request another site could have made: it carries no proof that it is the page's own. */
function mayBeForeign(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return !OWN_REQUESTS.has(site);
  // Browsers without Fetch Metadata: only answers without a session are safe to compress.
  return Boolean(request.headers.cookie?.includes(`${SESSION_COOKIE}=`));
}

/**
 * Large answers go out compressed, Brotli or gzip by the request's Accept-Encoding (issue 14).
 * The web app's files were compressed at build time and go out as they are. An answer that could
 * carry a secret next to something an attacker chose is never compressed, so its length tells
 * nothing (BREACH): answers to writes (sign-in, MFA set-up, recovery codes) and answers to any
 * request that is not surely the page's own (Sec-Fetch-Site other than same-origin or none; or,
 * from a browser that does not send it, a request with a session). A request body in any
 * Content-Encoding but identity is refused with 415: nothing is inflated, and no body is read as
 * something other than what it says it is.
 */
export const compressionPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const encoding = request.headers['content-encoding'];
    if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
      throw new AppError(
        'unsupported_media_type',
        'Request bodies are accepted without Content-Encoding only',
      );
    }
    if (!READS.has(request.method) || mayBeForeign(request)) request.headers['x-no-compression'] = '1';
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
