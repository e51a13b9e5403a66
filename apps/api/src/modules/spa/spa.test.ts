import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'moat-dist-'));
beforeAll(async () => {
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Moat</title><div id="root"></div>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-AbC123.js'), 'console.log(1)');
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
