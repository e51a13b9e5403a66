import { and, eq, gt, lt, sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { Db } from '../db/client.ts';
import { rowsOf } from '../db/client.ts';
import { rateCounters } from '../db/schema.ts';
import type { Clock } from './clock.ts';

/**
 * Counters every node shares (issue 9 "Shared limits"): fixed-window hit counts for rate limits
 * and gauges for open connections. Redis when `REDIS_URL` is set, else the PostgreSQL the nodes
 * share, else (the embedded single-node default) this process's memory.
 */
export interface Counters {
  readonly kind: 'memory' | 'postgres' | 'redis';
  /** Count one hit of `key` in its current window of `windowMs`; the count and the time left. */
  hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>;
  /** The hits of `key` in its current window (0 when none), without counting one. */
  hits(key: string): Promise<number>;
  /** Move a gauge by `delta` (kept `ttlMs` after its last change, so a dead node's share fades); its value. */
  add(key: string, delta: number, ttlMs: number): Promise<number>;
  /** Forget expired entries (a periodic sweep). */
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export function memoryCounters(clock: Clock): Counters {
  const entries = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string, now: number) => {
    const entry = entries.get(key);
    return entry && entry.resetAt > now ? entry : null;
  };
  return {
    kind: 'memory',
    async hit(key, windowMs) {
      const now = clock.now().getTime();
      const entry = live(key, now) ?? { count: 0, resetAt: now + windowMs };
      entry.count += 1;
      entries.set(key, entry);
      if (entries.size > 50_000) await this.sweep();
      return { count: entry.count, ttlMs: entry.resetAt - now };
    },
    async hits(key) {
      return live(key, clock.now().getTime())?.count ?? 0;
    },
    async add(key, delta, ttlMs) {
      const now = clock.now().getTime();
      const entry = live(key, now) ?? { count: 0, resetAt: 0 };
      entry.count = Math.max(0, entry.count + delta);
      entry.resetAt = now + ttlMs;
      if (entry.count === 0) entries.delete(key);
      else entries.set(key, entry);
      return entry.count;
    },
    async sweep() {
      const now = clock.now().getTime();
      for (const [key, entry] of entries) if (entry.resetAt <= now) entries.delete(key);
    },
    async close() {},
  };
}

export function postgresCounters(db: Db, clock: Clock): Counters {
  return {
    kind: 'postgres',
    async hit(key, windowMs) {
      const now = clock.now();
      const reset = new Date(now.getTime() + windowMs);
      const [row] = rowsOf<{ count: number; reset_at: Date | string }>(
        await db.execute(sql`
          insert into ${rateCounters} (key, count, reset_at) values (${key}, 1, ${reset})
          on conflict (key) do update set
            count = case when ${rateCounters.resetAt} <= ${now} then 1 else ${rateCounters.count} + 1 end,
            reset_at = case when ${rateCounters.resetAt} <= ${now} then ${reset} else ${rateCounters.resetAt} end
          returning count, reset_at`),
      );
      return {
        count: Number(row!.count),
        ttlMs: Math.max(0, new Date(row!.reset_at).getTime() - now.getTime()),
      };
    },
    async hits(key) {
      const [row] = await db
        .select({ count: rateCounters.count })
        .from(rateCounters)
        .where(and(eq(rateCounters.key, key), gt(rateCounters.resetAt, clock.now())));
      return row?.count ?? 0;
    },
    async add(key, delta, ttlMs) {
      const now = clock.now();
      const reset = new Date(now.getTime() + ttlMs);
      const [row] = rowsOf<{ count: number }>(
        await db.execute(sql`
          insert into ${rateCounters} (key, count, reset_at) values (${key}, greatest(${delta}, 0), ${reset})
          on conflict (key) do update set
            count = greatest(0, case when ${rateCounters.resetAt} <= ${now} then 0 else ${rateCounters.count} end + ${delta}),
            reset_at = ${reset}
          returning count`),
      );
      return Number(row!.count);
    },
    async sweep() {
      await db.delete(rateCounters).where(lt(rateCounters.resetAt, clock.now()));
    },
    async close() {},
  };
}

/** Count and expire in one step, so two nodes never both start a window. */
const HIT = `local c = redis.call('INCR', KEYS[1])
if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local t = redis.call('PTTL', KEYS[1])
if t < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); t = tonumber(ARGV[1]) end
return {c, t}`;
const ADD = `local c = redis.call('INCRBY', KEYS[1], ARGV[1])
if c < 0 then redis.call('SET', KEYS[1], 0); c = 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return c`;

export function redisCounters(redis: Redis, prefix = 'moat:'): Counters {
  return {
    kind: 'redis',
    async hit(key, windowMs) {
      const [count, ttl] = (await redis.eval(HIT, 1, `${prefix}hit:${key}`, windowMs)) as [number, number];
      return { count, ttlMs: ttl };
    },
    async hits(key) {
      return Number((await redis.get(`${prefix}hit:${key}`)) ?? 0);
    },
    async add(key, delta, ttlMs) {
      return Number(await redis.eval(ADD, 1, `${prefix}gauge:${key}`, delta, ttlMs));
    },
    async sweep() {},
    async close() {
      redis.disconnect();
    },
  };
}

/**
 * A store for @fastify/rate-limit over shared counters: each route counts under its own prefix,
 * as the plugin's own stores do.
 */
export function rateLimitStore(counters: Counters) {
  type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
  return class SharedRateLimitStore {
    readonly prefix: string;
    constructor(options: { routeInfo?: { method?: string; url?: string } } = {}, prefix = 'rl:') {
      this.prefix = options.routeInfo?.url
        ? `${prefix}${options.routeInfo.method}${options.routeInfo.url}:`
        : prefix;
    }
    incr(key: string, callback: Callback, timeWindow: number) {
      counters.hit(`${this.prefix}${key}`, timeWindow).then(
        ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
        (error: Error) => callback(error),
      );
    }
    // The plugin passes its merged route options (with routeInfo), typed as Fastify RouteOptions.
    child(routeOptions: object): SharedRateLimitStore {
      return new SharedRateLimitStore(routeOptions as { routeInfo?: { method?: string; url?: string } });
    }
  };
}
