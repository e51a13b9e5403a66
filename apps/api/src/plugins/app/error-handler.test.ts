import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, CSRF, TEST_BRIDGE_TOKEN } from '../../test/app.ts';

let t: Awaited<ReturnType<typeof buildTestApp>>;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const bridge = { authorization: `Bearer ${TEST_BRIDGE_TOKEN}`, 'content-type': 'application/json' };

describe('error answers', () => {
  it('answers an unknown API path with 404 not_found in the one error shape', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    const body = res.json();
    expect(body).toEqual({
      statusCode: 404,
      code: 'not_found',
      message: 'Route GET /api/v1/nothing-here not found',
      details: null,
      reqId: res.headers['x-request-id'],
    });
  });

  it('lists every failing field of a request that does not match its schema', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/internal/cli',
      headers: bridge,
      payload: { argv: 'tenant:list', stdin: 5 },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.code).toBe('validation_error');
    const fields = body.details.map((d: { field: string }) => d.field).sort();
    expect(fields).toEqual(['body.argv', 'body.cwd', 'body.stdin']);
  });

  it('answers malformed JSON with 400 bad_request, not a 500', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/internal/cli',
      headers: bridge,
      payload: '{"argv": [',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('bad_request');
  });

  it('answers a body over 1 MiB with 413 payload_too_large', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/internal/cli',
      headers: bridge,
      payload: JSON.stringify({ argv: [], cwd: '/', stdin: 'x'.repeat(1_100_000) }),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
  });

  it('refuses a state-changing API call without the CSRF header', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/v1/anything', payload: {} });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('x-requested-with'),
    });
    const withHeader = await t.app.inject({
      method: 'POST',
      url: '/api/v1/anything',
      headers: CSRF,
      payload: {},
    });
    expect(withHeader.statusCode).toBe(404);
  });
});

describe('security headers', () => {
  it('sends a strict CSP and the other ASVS headers on every answer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    const csp = String(res.headers['content-security-policy']);
    const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src'));
    expect(scriptSrc?.trim()).toBe("script-src 'self'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['strict-transport-security']).toContain('max-age=31536000');
    expect(res.headers['cross-origin-opener-policy']).toBe('same-origin');
    expect(res.headers['permissions-policy']).toContain('camera=()');
  });

  it('marks API answers as never cached', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' });
    expect(res.headers['cache-control']).toBe('no-store');
  });
});

describe('OpenAPI', () => {
  it('GET /api/docs/json lists the endpoints as OpenAPI 3.1', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    for (const p of [
      '/healthz',
      '/readyz',
      '/api/v1/generic/ui_features_public',
      '/api/v1/generic/recaptcha_config',
      '/api/v1/custom_icon_public',
      '/api/v1/current_user',
    ]) {
      expect(Object.keys(doc.paths)).toContain(p);
    }
    expect(Object.keys(doc.paths)).not.toContain('/internal/cli');
  });

  it('serves the browsable docs at /api/docs', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
  });
});
