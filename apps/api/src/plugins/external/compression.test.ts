import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import zlib from 'node:zlib';
import { SESSION_COOKIE } from '@moat/contracts/current-user';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { acceptedEncoding, COMPRESSION_THRESHOLD, compressionPlugin } from './compression.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

// The OpenAPI document: a large JSON answer anyone may read.
const url = '/api/docs/json';

describe('compressed answers', () => {
  it('sends a large answer as Brotli or gzip by Accept-Encoding, the same JSON inside', async () => {
    const plain = await t.app.inject({ method: 'GET', url });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.length).toBeGreaterThan(COMPRESSION_THRESHOLD);

    const br = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    expect(br.rawPayload.length).toBeLessThan(plain.body.length / 3);

    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
  });

  it('compresses a file sent as a stream (the API docs’ stylesheet), the same bytes inside', async () => {
    const cssUrl = '/api/docs/static/swagger-ui.css';
    const plain = await t.app.inject({ method: 'GET', url: cssUrl });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const gz = await t.app.inject({ method: 'GET', url: cssUrl, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers['content-length']).toBeUndefined();
    expect(gz.headers.vary).toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('takes the encoding the client prefers by its q-values; none when it refuses both', () => {
    expect(acceptedEncoding('gzip, deflate, br')).toBe('br');
    expect(acceptedEncoding('gzip;q=1, br;q=0.5')).toBe('gzip');
    expect(acceptedEncoding('BR')).toBe('br');
    expect(acceptedEncoding('*')).toBe('br');
    expect(acceptedEncoding('gzip, *;q=0')).toBe('gzip');
    expect(acceptedEncoding('br;q=0, gzip;q=0')).toBeNull();
    expect(acceptedEncoding('identity, deflate')).toBeNull();
    expect(acceptedEncoding('br;q=abc')).toBeNull();
    expect(acceptedEncoding('')).toBeNull();
    expect(acceptedEncoding(undefined)).toBeNull();
  });

  it('sends a small answer as it is', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('compresses only what the page itself asked for (BREACH)', async () => {
    const encoded = async (headers: Record<string, string>) =>
      (await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'br, gzip', ...headers } }))
        .headers['content-encoding'];
    expect(await encoded({ 'sec-fetch-site': 'same-origin' })).toBe('br');
    expect(await encoded({ 'sec-fetch-site': 'none' })).toBe('br');
    // Another site, a sibling subdomain, or an unknown value: never.
    expect(await encoded({ 'sec-fetch-site': 'cross-site' })).toBeUndefined();
    expect(await encoded({ 'sec-fetch-site': 'same-site' })).toBeUndefined();
    expect(await encoded({ 'sec-fetch-site': 'bogus' })).toBeUndefined();
    // A browser without Fetch Metadata: compressed only when it carries no session.
    expect(await encoded({})).toBe('br');
    expect(await encoded({ cookie: `${SESSION_COOKIE}=abc` })).toBeUndefined();
  });

  it('never compresses an answer to a write, where secrets are handed out (BREACH)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { ...CSRF, 'accept-encoding': 'br, gzip' },
      payload: { email: 'nobody@example.com', password: 'x'.repeat(2_000) },
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('refuses a request body in any Content-Encoding but identity with 415, inflating nothing', async () => {
    for (const [encoding, body] of [
      ['gzip', zlib.gzipSync(JSON.stringify({ email: 'a@example.com', password: 'p' }))],
      ['gzip', Buffer.from(JSON.stringify({ email: 'a@example.com', password: 'p' }))],
      ['br', zlib.brotliCompressSync('{}')],
      ['x-weird', Buffer.from('{}')],
    ] as const) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        headers: { ...CSRF, 'content-type': 'application/json', 'content-encoding': encoding },
        payload: body,
      });
      expect(res.statusCode, encoding).toBe(415);
      expect(res.json().code).toBe('unsupported_media_type');
    }
  });
});

describe('compressed answers: streams', () => {
  const app = Fastify();
  const text = 'a line of text\n'.repeat(500);
  beforeAll(async () => {
    await app.register(compressionPlugin);
    // A file that cannot be read: the stream fails before its first byte.
    app.get('/gone', (_request, reply) =>
      reply.type('text/plain').send(fs.createReadStream('/nonexistent/moat-file')),
    );
    app.get('/part', (_request, reply) =>
      reply
        .code(206)
        .type('text/plain')
        .header('content-range', `bytes 0-${text.length - 1}/${text.length * 2}`)
        .send(text),
    );
    app.get('/events', (_request, reply) => {
      const stream = new PassThrough();
      stream.end(`data: ${text}\n\n`);
      return reply.type('text/event-stream').send(stream);
    });
  });
  afterAll(() => app.close());
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });

  it('sends the error of a stream that failed at once as it is, not labelled compressed', async () => {
    const res = await get('/gone');
    expect(res.statusCode).toBe(500);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(() => JSON.parse(res.body)).not.toThrow();
  });

  it('sends a part of a file (206) and an event stream as they are', async () => {
    const part = await get('/part');
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-encoding']).toBeUndefined();
    expect(part.body).toBe(text);
    const events = await get('/events');
    expect(events.headers['content-encoding']).toBeUndefined();
    expect(events.body).toBe(`data: ${text}\n\n`);
  });
});
