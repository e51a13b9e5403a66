import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { COMPRESSION_THRESHOLD } from './compression.ts';

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

  it('sends a small answer as it is', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('never compresses an answer to another site’s request (BREACH)', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'br, gzip', 'sec-fetch-site': 'cross-site' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
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

  it('refuses no compressed request body silently into a bomb: it is not inflated', async () => {
    const body = zlib.gzipSync(JSON.stringify({ email: 'a@example.com', password: 'p' }));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { ...CSRF, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: body,
    });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });
});
