import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app.ts';

const BIG = `export const words = ${JSON.stringify('moat '.repeat(2_000))};\n`;
let t: Awaited<ReturnType<typeof buildTestApp>>;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dist-'));
beforeAll(async () => {
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Moat</title><div id="root"></div>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log(1)');
  // As the build writes them (apps/web/build/precompress.ts).
  const big = path.join(dist, 'assets', 'big-XyZ789.js');
  fs.writeFileSync(big, BIG);
  fs.writeFileSync(`${big}.br`, zlib.brotliCompressSync(BIG));
  fs.writeFileSync(`${big}.gz`, zlib.gzipSync(BIG));
  // A large file the build left without copies is still never compressed per request.
  fs.writeFileSync(path.join(dist, 'assets', 'uncopied-QwE456.js'), BIG);
  t = await buildTestApp({ env: { WEB_DIST_DIR: dist } });
});
afterAll(() => t.close());

describe('the built web app', () => {
  it('serves index.html at / revalidated on every load', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<div id="root">');
  });

  it('serves hashed assets with a year-long immutable cache', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/index-AbC123.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('sends the Brotli or gzip copy the build wrote, by Accept-Encoding', async () => {
    const url = '/assets/big-XyZ789.js';
    const br = await t.app.inject({
      method: 'GET',
      url,
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/javascript/);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(br.rawPayload).toString()).toBe(BIG);
    expect(br.rawPayload.length).toBeLessThan(BIG.length / 10);

    const gz = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).toString()).toBe(BIG);

    const plain = await t.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'identity' } });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(BIG);
  });

  it('sends a file without a compressed copy as it is', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/assets/index-AbC123.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body).toBe('console.log(1)');
    const large = await t.app.inject({
      method: 'GET',
      url: '/assets/uncopied-QwE456.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(large.statusCode).toBe(200);
    expect(large.headers['content-encoding']).toBeUndefined();
    expect(large.body).toBe(BIG);
  });

  it('sends a browser asking for another page path to the hash router, query kept', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '/email_restore.html?type=office365_emails&msg=abc',
      headers: { accept: 'text/html' },
    });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/#/email_restore.html?type=office365_emails&msg=abc');
  });

  it('never redirects off the origin, whatever the path', async () => {
    const res = await t.app.inject({
      method: 'GET',
      url: '//evil.example/x',
      headers: { accept: 'text/html' },
    });
    expect(String(res.headers.location ?? '')).toMatch(/^\/#\//);
  });

  it('answers a missing asset with a 404', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/assets/missing.js' });
    expect(res.statusCode).toBe(404);
  });
});

describe('without a built web app', () => {
  it('answers / with 503 telling how to build it', async () => {
    const other = await buildTestApp();
    const res = await other.app.inject({ method: 'GET', url: '/' });
    expect(res.statusCode).toBe(503);
    expect(res.json().message).toContain('npm run build');
    await other.close();
  });
});
