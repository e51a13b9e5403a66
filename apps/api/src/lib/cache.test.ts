import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Database, rowsOf } from '../db/client.ts';
import { openTestDatabase } from '../test/database.ts';
import { createCaches } from './cache.ts';
import { systemClock } from './clock.ts';

describe('caches kept by the database change notices', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openTestDatabase();
  });
  afterAll(async () => {
    await database.close();
  });

  async function tenantCount() {
    const [row] = rowsOf<{ n: number }>(
      await database.db.execute(sql`select count(*)::int as n from tenants`),
    );
    return row!.n;
  }

  it('serves a value once loaded, and loads again after a write to a table it depends on', async () => {
    const caches = createCaches({ database, clock: systemClock });
    await caches.start();
    const cache = caches.create<number>('tenant-count', { tables: ['tenants'], ttlMs: 60_000 });
    let loads = 0;
    const get = () =>
      cache.get('all', () => {
        loads++;
        return tenantCount();
      });
    const before = await get();
    expect(await get()).toBe(before);
    expect(loads).toBe(1);

    // A write through this process: heard at once.
    await database.db.execute(sql`insert into tenants (name) values ('Cache one')`);
    expect(await get()).toBe(before + 1);
    expect(loads).toBe(2);
    caches.stop();
  });

  it('hears a write another connection makes (another node, the CLI, psql)', async () => {
    const caches = createCaches({ database, clock: systemClock });
    await caches.start();
    const cache = caches.create<number>('tenant-count', { tables: ['tenants'], ttlMs: 60_000 });
    const before = await cache.get('all', tenantCount);
    if (database.kind === 'postgres') {
      // The test database's name: the same server, the database of this file.
      const [{ name }] = rowsOf<{ name: string }>(
        await database.db.execute(sql`select current_database() as name`),
      ) as [{ name: string }];
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${name}`;
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      await client.query(`insert into tenants (name) values ('Cache two')`);
      await client.end();
    } else {
      await database.db.execute(sql`insert into tenants (name) values ('Cache two')`);
    }
    await vi.waitFor(async () => expect(await cache.get('all', tenantCount)).toBe(before + 1), {
      timeout: 2_000,
      interval: 10,
    });
    caches.stop();
  });

  it('forgets only the key a keyed notice names, and does not store what a change overtook', async () => {
    const caches = createCaches({ database, clock: systemClock });
    await caches.start();
    const cache = caches.create<string>('keyed', {
      tables: ['users'],
      keyedTable: 'sessions',
      ttlMs: 60_000,
    });
    let n = 0;
    await cache.get('a', async () => `a${n++}`);
    await cache.get('b', async () => `b${n++}`);
    caches.changed('sessions:a');
    expect(await cache.get('a', async () => `a${n++}`)).toBe('a2');
    expect(await cache.get('b', async () => 'never')).toBe('b1');

    // A load that a change overtakes answers its value but does not keep it.
    const slow = cache.get('c', async () => {
      caches.changed('users');
      return 'stale';
    });
    expect(await slow).toBe('stale');
    expect(await cache.get('c', async () => 'fresh')).toBe('fresh');
    caches.stop();
  });

  it('keeps nothing while notices are not heard, nor absent values', async () => {
    const caches = createCaches({ database, clock: systemClock });
    const cache = caches.create<string | null>('off', { tables: ['tenants'], ttlMs: 60_000 });
    let loads = 0;
    await cache.get('x', async () => `v${loads++}`);
    await cache.get('x', async () => `v${loads++}`);
    expect(loads).toBe(2); // not started: nothing kept
    await caches.start();
    const absent = async () => {
      loads++;
      return null;
    };
    await cache.get('y', absent);
    await cache.get('y', absent);
    expect(loads).toBe(4);
    caches.stop();
    expect(caches.active).toBe(false);
  });

  it('lets an entry expire after its lifetime', async () => {
    let now = Date.parse('2026-11-23T10:00:00Z');
    const caches = createCaches({ database, clock: { now: () => new Date(now) } });
    await caches.start();
    const cache = caches.create<number>('ttl', { tables: ['tenants'], ttlMs: 1_000 });
    let loads = 0;
    await cache.get('k', async () => loads++);
    now += 999;
    await cache.get('k', async () => loads++);
    expect(loads).toBe(1);
    now += 2;
    await cache.get('k', async () => loads++);
    expect(loads).toBe(2);
    caches.stop();
  });
});
