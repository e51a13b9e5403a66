import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../test/app.ts';

describe('health', () => {
  let t: Awaited<ReturnType<typeof buildTestApp>>;
  beforeAll(async () => {
    t = await buildTestApp();
  });
  afterAll(() => t.close());

  it('GET /healthz answers 200 ok', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers and every migration is applied', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ready',
      checks: { database: 'ok', migrations: 'ok', secret_key: 'ok' },
    });
  });
});

describe('GET /readyz on a database that is gone', () => {
  it('answers 503 not_ready with the database unreachable', async () => {
    const t = await buildTestApp();
    await t.database.close();
    const res = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not_ready', checks: { database: 'unreachable' } });
    await t.app.close();
  });
});

describe('one secret for all nodes', () => {
  it("records the first node's key; a node with another key refuses to start and /readyz says mismatch", async () => {
    const first = await buildTestApp();
    await first.app.services.cluster.ensureKey();
    // A second node on the same database with a key of its own.
    const second = await buildTestApp({ database: first.database });
    await expect(second.app.services.cluster.ensureKey()).rejects.toThrow(
      /SECRET_KEY differs from the key this database was set up with/,
    );
    const res = await second.app.inject({ method: 'GET', url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'not_ready', checks: { secret_key: 'mismatch' } });
    // A node with the same key joins.
    const third = await buildTestApp({ database: first.database, serverKey: first.serverKey });
    await expect(third.app.services.cluster.ensureKey()).resolves.toBeUndefined();
    expect((await third.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await third.app.close();
    await second.app.close();
    await first.close();
  });
});
