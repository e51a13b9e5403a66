import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.ts';
import type { Database } from './db/client.ts';
import { ServerKey } from './lib/server-key.ts';
import { testConfig } from './test/app.ts';
import { openTestDatabase } from './test/database.ts';

/**
 * Request logs (issue 33): none at the default level; one line per request at LOG_LEVEL=debug;
 * errors logged at any level that shows them.
 */
const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
});

async function appLogging(level: string, routes?: (app: Awaited<ReturnType<typeof buildApp>>) => void) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const database: Database = await openTestDatabase();
  const app = await buildApp({
    config: testConfig({ LOG_LEVEL: level }),
    database,
    serverKey: ServerKey.inMemory(),
    logger: { level, stream },
  });
  routes?.(app);
  await app.ready();
  opened.push({ close: () => app.close() }, database);
  return { app, lines };
}

const perRequest = (lines: Array<Record<string, unknown>>) =>
  lines.filter((line) => line.req !== undefined || /request/.test(String(line.msg)));

describe('request logs', () => {
  it('writes none at the default level (info)', async () => {
    const { app, lines } = await appLogging('info');
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/api/v1/generic/ui_features_public' });
    await app.inject({ method: 'GET', url: '/api/v1/current_user' });
    expect(perRequest(lines)).toEqual([]);
  });

  it('writes one line per request at debug, with method, path (no query) and status', async () => {
    const { app, lines } = await appLogging('debug');
    await app.inject({ method: 'GET', url: '/healthz' });
    await app.inject({ method: 'GET', url: '/api/v1/current_user?code=123456' });
    const requests = perRequest(lines);
    expect(requests).toHaveLength(2);
    expect(requests[1]).toMatchObject({
      level: 20,
      msg: 'request',
      req: { method: 'GET', url: '/api/v1/current_user' },
      res: { statusCode: 403 },
    });
    expect(JSON.stringify(requests)).not.toContain('123456');
  });

  it('still logs an error at info', async () => {
    const { app, lines } = await appLogging('info', (built) =>
      built.get('/boom-test', async () => {
        throw new Error('boom');
      }),
    );
    expect((await app.inject({ method: 'GET', url: '/boom-test' })).statusCode).toBe(500);
    expect(lines.some((line) => line.level === 50 && line.msg === 'unhandled error')).toBe(true);
  });
});
