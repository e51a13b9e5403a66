import { pipeline, type Readable } from 'node:stream';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** Smaller answers gain less from compression than it costs. */
export const COMPRESSION_THRESHOLD = 1024;
const READS = new Set(['GET', 'HEAD']);
/** Requests the page itself made (same-origin), or the user typed or bookmarked (none). */
const OWN_REQUESTS = new Set(['same-origin', 'none']);
/**
 * Text of some kind: JSON, HTML, CSS, JavaScript, SVG, CSV, XML. Images and archives are packed
 * already; an event stream must reach the browser event by event, not when a compressor is full.
 */
const COMPRESSIBLE =
  /^\s*(?!text\/event-stream\b)(text\/|image\/svg\+xml|application\/(json|javascript|x-javascript|xml|[\w.-]+\+(json|xml))\b)/i;
/** What Moat compresses with, in order of preference. */
type Encoding = 'br' | 'gzip';
// Quality 4 and level 6: per request, speed matters more than the last few per cent.
const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };
const GZIP_OPTIONS = { level: 6 };
const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Requests whose answers go out as they are, whatever their type and size. */
const uncompressed = new WeakSet<FastifyRequest>();
/** The stream each reply is sending through a compressor. */
const compressing = new WeakMap<FastifyReply, unknown>();

/**
 * This request's answer goes out as it is: the web app's files, which the build compressed when
 * that was worth it (modules/spa/spa.routes.ts).
 */
export function sendUncompressed(request: FastifyRequest): void {
  uncompressed.add(request);
}

/** A request another site could have made: it carries no proof that it is the page's own. */
function mayBeForeign(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return !OWN_REQUESTS.has(site);
  // Browsers without Fetch Metadata: only answers without a session are safe to compress.
  return Boolean(request.headers.cookie?.includes(`${SESSION_COOKIE}=`));
}

/** The encoding the client prefers among Brotli and gzip (Accept-Encoding, q-values, `*`), if any. */
export function acceptedEncoding(header: string | undefined): Encoding | null {
  if (!header) return null;
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (name) weights.set(name, Number.isFinite(weight) ? weight : 0);
  }
  let best: Encoding | null = null;
  let bestWeight = 0;
  for (const encoding of ['br', 'gzip'] as const) {
    const weight = weights.get(encoding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight) [best, bestWeight] = [encoding, weight];
  }
  return best;
}

function varyOnEncoding(reply: FastifyReply): void {
  const vary = String(reply.getHeader('vary') ?? '');
  if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) {
    reply.header('vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  }
}

/** The payload as it goes out: compressed when it is text, large enough and the client takes it. */
async function compressed(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (reply.hasHeader('content-encoding')) {
    const ours = compressing.get(reply);
    if (ours === undefined || ours === payload) return payload;
    // The stream failed before its first byte and an error answer replaces it: that answer goes
    // out as it is, so it must not say it is compressed (the header was copied to the response).
    compressing.delete(reply);
    reply.removeHeader('content-encoding');
    reply.raw.removeHeader('content-encoding');
    return payload;
  }
  if (payload === null || payload === undefined || uncompressed.has(request)) return payload;
  // A part of a file (Range) is counted in the file's own bytes: it goes out as it is.
  if (reply.statusCode === 206 || reply.hasHeader('content-range')) return payload;
  if (!COMPRESSIBLE.test(String(reply.getHeader('content-type') ?? ''))) return payload;
  let bytes: Buffer | null = null;
  if (typeof payload === 'string') bytes = Buffer.from(payload);
  else if (Buffer.isBuffer(payload)) bytes = payload;
  else if (typeof (payload as Partial<Readable>).pipe !== 'function') return payload;
  const length = bytes ? bytes.length : Number(reply.getHeader('content-length') ?? Number.POSITIVE_INFINITY);
  if (length < COMPRESSION_THRESHOLD) return payload;
  varyOnEncoding(reply);
  const encoding = acceptedEncoding(request.headers['accept-encoding']);
  if (!encoding || !READS.has(request.method) || mayBeForeign(request)) return payload;
  reply.header('content-encoding', encoding);
  reply.removeHeader('content-length');
  if (bytes) return encoding === 'br' ? brotli(bytes, BROTLI_OPTIONS) : gzip(bytes, GZIP_OPTIONS);
  const compressor =
    encoding === 'br' ? zlib.createBrotliCompress(BROTLI_OPTIONS) : zlib.createGzip(GZIP_OPTIONS);
  // A failed read (a file gone) ends the compressed stream with the same error.
  const stream = pipeline(payload as Readable, compressor, () => undefined);
  compressing.set(reply, stream);
  return stream;
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
  });
  app.addHook('onSend', async (request, reply, payload) => compressed(request, reply, payload));
});
