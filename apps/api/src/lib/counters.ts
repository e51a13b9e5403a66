import type { Redis } from 'ioredis';
import type { Clock } from './clock.ts';
import type { CountersRepo } from './counters.repo.ts';

/**
 * Counters every node shares (issue 9 "Shared limits"): fixed-window hit counts for rate limits
 * and gauges for open connections. Redis when `REDIS_URL` is set, else the PostgreSQL the nodes
 * share, else (the embedded single-node default) this process's memory.
 */
export interface Counters {
  readonly kind: 'memory' | 'postgres' | 'redis';
  /** Count one hit of `key` in its current window of `windowMs`; the count and the time left. */
  hit(key: string, windowMs: number): Promise<{ count: number; ttlMs: number }>;
  /** `hit` of several keys at once (one round trip): the results in the same order. */
  hitMany(keys: Array<{ key: string; windowMs: number }>): Promise<Array<{ count: number; ttlMs: number }>>;
  /** The hits of `key` in its current window (0 when none), without counting one. */
  hits(key: string): Promise<number>;
  /** Move a gauge by `delta` (kept `ttlMs` after its last change); its value. */
  add(key: string, delta: number, ttlMs: number): Promise<number>;
  /**
   * Move `node`'s share of a gauge by `delta` and keep it `ttlMs`; the gauge's total over every
   * node's live share. A node renews its shares while they are non-zero (`renewShares`), so the
   * share of a node that died fades after `ttlMs` instead of counting for ever.
   */
  share(key: string, node: string, delta: number, ttlMs: number): Promise<number>;
  /** Keep `node`'s shares of these gauges alive another `ttlMs`. */
  renewShares(keys: string[], node: string, ttlMs: number): Promise<void>;
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
    async hitMany(keys) {
      const out = [];
      for (const { key, windowMs } of keys) out.push(await this.hit(key, windowMs));
      return out;
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
    async share(key, _node, delta, ttlMs) {
      // One process: its share is the whole gauge.
      return this.add(key, delta, ttlMs);
    },
    async renewShares(keys, _node, ttlMs) {
      const until = clock.now().getTime() + ttlMs;
      for (const key of keys) {
        const entry = entries.get(key);
        if (entry) entry.resetAt = until;
      }
    },
    async sweep() {
      const now = clock.now().getTime();
      for (const [key, entry] of entries) if (entry.resetAt <= now) entries.delete(key);
    },
    async close() {},
  };
}

export function postgresCounters(repo: CountersRepo, clock: Clock): Counters {
  return {
    kind: 'postgres',
    async hit(key, windowMs) {
      const now = clock.now();
      const { count, resetAt } = await repo.hit(key, now, new Date(now.getTime() + windowMs));
      return { count, ttlMs: Math.max(0, resetAt.getTime() - now.getTime()) };
    },
    async hitMany(keys) {
      const now = clock.now();
      const rows = await repo.hitMany(
        keys.map(({ key, windowMs }) => ({ key, reset: new Date(now.getTime() + windowMs) })),
        now,
      );
      return rows.map(({ count, resetAt }) => ({
        count,
        ttlMs: Math.max(0, resetAt.getTime() - now.getTime()),
      }));
    },
    async hits(key) {
      return (await repo.liveCount(key, clock.now())) ?? 0;
    },
    async add(key, delta, ttlMs) {
      const now = clock.now();
      return repo.add(key, delta, now, new Date(now.getTime() + ttlMs));
    },
    async share(key, node, delta, ttlMs) {
      await this.add(`${key}|${node}`, delta, ttlMs);
      return repo.liveTotal(`${key}|`, clock.now());
    },
    async renewShares(keys, node, ttlMs) {
      await repo.extend(
        keys.map((key) => `${key}|${node}`),
        new Date(clock.now().getTime() + ttlMs),
      );
    },
    async sweep() {
      await repo.forgetExpired(clock.now());
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
/** A node's share: its count and when it lapses, in one hash per gauge; the total of live shares. */
const SHARE = `local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local own = redis.call('HGET', KEYS[1], ARGV[1])
local c = 0
if own then
  local n, e = string.match(own, '(-?%d+):(%d+)')
  if tonumber(e) > ms then c = tonumber(n) end
end
c = math.max(0, c + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], ARGV[1], c .. ':' .. (ms + tonumber(ARGV[3])))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local total = 0
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local n, e = string.match(all[i + 1], '(-?%d+):(%d+)')
  if tonumber(e) > ms then total = total + tonumber(n) else redis.call('HDEL', KEYS[1], all[i]) end
end
return total`;
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
    async hitMany(keys) {
      const pipeline = redis.pipeline();
      for (const { key, windowMs } of keys) pipeline.eval(HIT, 1, `${prefix}hit:${key}`, windowMs);
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, value]) => {
        if (error) throw error;
        const [count, ttl] = value as [number, number];
        return { count, ttlMs: ttl };
      });
    },
    async hits(key) {
      return Number((await redis.get(`${prefix}hit:${key}`)) ?? 0);
    },
    async add(key, delta, ttlMs) {
      return Number(await redis.eval(ADD, 1, `${prefix}gauge:${key}`, delta, ttlMs));
    },
    async share(key, node, delta, ttlMs) {
      return Number(await redis.eval(SHARE, 1, `${prefix}share:${key}`, node, delta, ttlMs));
    },
    async renewShares(keys, node, ttlMs) {
      for (const key of keys) await redis.eval(SHARE, 1, `${prefix}share:${key}`, node, 0, ttlMs);
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
