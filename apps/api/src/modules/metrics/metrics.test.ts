import { AUTH_API } from '@moat/contracts/auth-paths';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInboundRepo } from '../../mail/gateway/inbound.repo.ts';
import { buildTestApp, CSRF } from '../../test/app.ts';
import { buildTenant } from '../../test/factories.ts';
import { solveCaptcha } from '../../test/sign-in.ts';
import { boundToLoopback } from './metrics.routes.ts';

/** DNS for tests: no records anywhere, answered at once. */
const noDns = async () => {
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};
const TOKEN = 'prometheus-scraper-0123456789abcdef';
const REMOTE = '203.0.113.5';

/** The sum of a metric's samples whose labels include `labels`, from the text format. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = m[2] ? m[2].split(',') : [];
    if (want.every((w) => got.includes(w))) sum += Number(m[3]);
  }
  return sum;
}

describe('GET /metrics', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    // Bound to loopback only: a scraper on this host may read the metrics without a token.
    t = await buildTestApp({
      dnsResolver: noDns as never,
      env: { CAPTCHA_DIFFICULTY: '10', HOST: '127.0.0.1' },
    });
  });
  afterAll(() => t.close());

  const scrape = (options: { remoteAddress?: string; headers?: Record<string, string> } = {}) =>
    t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: options.remoteAddress ?? '127.0.0.1',
      headers: options.headers ?? {},
    });

  it('answers the Prometheus text format to a loopback caller, with every metric of issue 14', async () => {
    const res = await scrape();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'moat_http_requests_total',
      'moat_http_request_duration_seconds',
      'moat_gateway_messages_total',
      'moat_queue_depth',
      'moat_engine_duration_seconds',
      'moat_engine_errors_total',
      'moat_relay_errors_total',
      'moat_login_failures_total',
      'moat_login_throttled_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(res.body, name).toContain(`# TYPE ${name} `);
    }
    expect(sample(res.body, 'moat_queue_depth', { queue: 'outbox' })).toBeGreaterThanOrEqual(0);
    expect(res.body).toMatch(/^moat_queue_depth\{queue="failed"\} \d+$/m);
  });

  it('counts each answer by route pattern and status, never by the path asked for', async () => {
    const before = (await scrape()).body;
    const labels = { method: 'GET', route: '/healthz', status: '200' };
    await t.app.inject({ method: 'GET', url: '/healthz' });
    await t.app.inject({ method: 'GET', url: '/healthz' });
    const id = '6f1c1f5e-0d6b-4c8e-9a4e-2b7f7f0c9d11';
    await t.app.inject({ method: 'GET', url: `/api/v1/mail_explorer/${id}/trace` });
    await t.app.inject({ method: 'GET', url: '/no/such/page?secret=1' });
    const after = (await scrape()).body;
    expect(sample(after, 'moat_http_requests_total', labels)).toBe(
      sample(before, 'moat_http_requests_total', labels) + 2,
    );
    expect(sample(after, 'moat_http_request_duration_seconds_count', labels)).toBeGreaterThanOrEqual(2);
    expect(
      sample(after, 'moat_http_requests_total', { route: '/api/v1/mail_explorer/:id/trace', status: '403' }),
    ).toBe(1);
    expect(sample(after, 'moat_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1);
    expect(after).not.toContain(id);
    expect(after).not.toContain('/no/such/page');
  });

  it('refuses an anonymous remote client, whatever X-Forwarded-For says, in the API error shape', async () => {
    for (const res of [
      await scrape({ remoteAddress: REMOTE }),
      await scrape({ remoteAddress: REMOTE, headers: { 'x-forwarded-for': '127.0.0.1' } }),
      // A proxy on this host relays the internet from loopback: a relayed request is not local.
      await scrape({ headers: { 'x-forwarded-for': REMOTE } }),
      // A browser on this host led to a hostile name that resolves to loopback (DNS rebinding).
      await scrape({ headers: { host: 'attacker.example:8080' } }),
      await scrape({ remoteAddress: REMOTE, headers: { authorization: `Bearer ${TOKEN}` } }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ statusCode: 403, code: 'forbidden', reqId: expect.any(String) });
      expect(res.body).not.toContain('moat_');
    }
  });

  it('counts a refused sign-in by its reason', async () => {
    const metric = { reason: 'bad_credentials' };
    const before = sample((await scrape()).body, 'moat_login_failures_total', metric);
    const res = await t.app.inject({
      method: 'POST',
      url: AUTH_API.login,
      headers: CSRF,
      remoteAddress: '198.51.100.7',
      payload: {
        email: 'nobody@metrics.test',
        current_password: 'not the password',
        recaptcha_token: await solveCaptcha(t.app),
      },
    });
    expect(res.statusCode).toBe(401);
    const after = (await scrape()).body;
    expect(sample(after, 'moat_login_failures_total', metric)).toBe(before + 1);
    expect(after).not.toContain('nobody@metrics.test');
  });

  it('counts a sign-in refused by the per-minute limit as throttled', async () => {
    const metric = { kind: 'rate_limit' };
    const before = sample((await scrape()).body, 'moat_login_throttled_total', metric);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: AUTH_API.login,
        headers: CSRF,
        remoteAddress: '198.51.100.8',
        payload: { email: 'someone@metrics.test', current_password: 'x', recaptcha_token: 'none' },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses.at(-1)).toBe(429);
    const after = (await scrape()).body;
    expect(sample(after, 'moat_login_throttled_total', metric)).toBe(before + 1);
    expect(sample(after, 'moat_login_failures_total', { reason: 'captcha_failed' })).toBeGreaterThanOrEqual(
      30,
    );
  });

  it('counts a message the gateway finished by verdict and action, times each engine, and shows the inbound queue', async () => {
    await buildTenant(t.db, { domain: 'metrics.test' });
    const clean = { verdict: 'clean', action: 'deliver' };
    const before = (await scrape()).body;
    await createInboundRepo(t.db).storeMany([
      {
        receivedAt: new Date(),
        clientIp: '192.0.2.10',
        helo: 'client.test',
        mailFrom: 'bob@outside.test',
        rcptTo: ['ana@metrics.test'],
        raw: Buffer.from(
          'From: Bob <bob@outside.test>\r\nTo: ana@metrics.test\r\nSubject: Lunch\r\nMessage-ID: <m1@outside.test>\r\n\r\nLunch at noon?\r\n',
        ),
        claimedBy: null,
        leaseUntil: null,
      },
    ]);
    const waiting = (await scrape()).body;
    expect(sample(waiting, 'moat_queue_depth', { queue: 'inbound' })).toBe(
      sample(before, 'moat_queue_depth', { queue: 'inbound' }) + 1,
    );
    expect(await t.app.services.gateway.processor.drain()).toBe(1);
    const after = (await scrape()).body;
    expect(sample(after, 'moat_gateway_messages_total', clean)).toBe(
      sample(before, 'moat_gateway_messages_total', clean) + 1,
    );
    expect(sample(after, 'moat_queue_depth', { queue: 'inbound' })).toBe(
      sample(before, 'moat_queue_depth', { queue: 'inbound' }),
    );
    for (const engine of ['anti_malware', 'anti_phishing']) {
      expect(sample(after, 'moat_engine_duration_seconds_count', { engine }), engine).toBe(
        sample(before, 'moat_engine_duration_seconds_count', { engine }) + 1,
      );
    }
    expect(after).not.toContain('metrics.test');
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  const scrape = (authorization?: string) =>
    t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: REMOTE,
      headers: authorization ? { authorization } : {},
    });

  it('lets a remote scraper in with the bearer token', async () => {
    const res = await scrape(`Bearer ${TOKEN}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE moat_http_requests_total counter');
  });

  it('refuses a wrong, partial or missing token', async () => {
    for (const authorization of [
      'Bearer wrong-token-0123456789abcdef',
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN}x`,
      TOKEN,
      undefined,
    ]) {
      const res = await scrape(authorization);
      expect(res.statusCode, String(authorization)).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
    }
  });

  it('is not in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });
});

describe('GET /metrics on a database that is gone', () => {
  it('still answers, without the queue depths', async () => {
    const t = await buildTestApp({ env: { HOST: '127.0.0.1' } });
    await t.database.close();
    const res = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('# TYPE moat_queue_depth gauge');
    expect(res.body).not.toMatch(/^moat_queue_depth\{/m);
    expect(res.body).toContain('# TYPE moat_http_requests_total counter');
    await t.app.close();
  });
});

describe('GET /metrics behind a proxy (TRUST_PROXY)', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    t = await buildTestApp({ env: { TRUST_PROXY: 'true', METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => t.close());

  it('takes no loopback caller for a local one (a proxy may relay the internet from loopback without saying so): only the token opens it', async () => {
    const plain = await t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' });
    expect(plain.statusCode).toBe(403);
    const spoofed = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: REMOTE,
      headers: { 'x-forwarded-for': '127.0.0.1' },
    });
    expect(spoofed.statusCode).toBe(403);
    const withToken = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '127.0.0.1',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(withToken.statusCode).toBe(200);
  });
});

describe('GET /metrics on a server bound to more than loopback (HOST)', () => {
  const local = (t: Awaited<ReturnType<typeof buildTestApp>>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1', headers });

  it('refuses even a direct loopback caller without METRICS_TOKEN, saying to set it (a proxy on this host may add no headers)', async () => {
    const t = await buildTestApp({ env: { HOST: '0.0.0.0' } });
    try {
      const res = await local(t);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'forbidden' });
      expect(res.json().message).toMatch(/Set METRICS_TOKEN/);
      expect(res.body).not.toContain('moat_');
    } finally {
      await t.close();
    }
  });

  it('with METRICS_TOKEN, only the token opens it, from loopback too', async () => {
    const t = await buildTestApp({ env: { HOST: '::', METRICS_TOKEN: TOKEN } });
    try {
      expect((await local(t)).statusCode).toBe(403);
      expect((await local(t, { authorization: `Bearer ${TOKEN}` })).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('takes localhost, ::1 and 127.0.0.1 for loopback only, and nothing else', async () => {
    for (const host of ['localhost', '::1', '[::1]', '127.0.0.1', 'LOCALHOST']) {
      expect(boundToLoopback(host), host).toBe(true);
    }
    for (const host of ['0.0.0.0', '::', '192.0.2.1', 'moat.example.com', '127.0.0.2']) {
      expect(boundToLoopback(host), host).toBe(false);
    }
    const t = await buildTestApp({ env: { HOST: 'localhost' } });
    try {
      expect((await local(t)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });
});
