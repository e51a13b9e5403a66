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
  /**
   * Count one hit of `key` in its current window of `windowMs`; the count and the time left. With
   * the `limit` the caller compares the count with, a shared store may count ahead (`countAhead`).
   */
  hit(key: string, windowMs: number, limit?: number): Promise<HitCount>;
  /** `hit` of several keys at once (one round trip): the results in the same order. */
  hitMany(keys: HitRequest[]): Promise<HitCount[]>;
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
  /** Send the hits counted ahead to the shared store now (a no-op where nothing waits). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export interface HitRequest {
  key: string;
  windowMs: number;
  /** The limit the caller compares the count with, if any. */
  limit?: number;
}
export interface HitCount {
  count: number;
  ttlMs: number;
}

/** What a shared store does in one round trip: `delta` hits of each key, counted in its window. */
interface HitBatch {
  key: string;
  windowMs: number;
  delta: number;
}
type SharedStore = Omit<Counters, 'hit' | 'hitMany' | 'flush'> & {
  kind: 'postgres' | 'redis';
  addHits(batch: HitBatch[]): Promise<HitCount[]>;
};

export function memoryCounters(clock: Clock): Counters {
  const entries = new Map<string, { count: number; resetAt: number }>();
  /** A crowd of keys is swept at most every few seconds, not at each hit (the sweeper runs too). */
  let sweptAt = 0;
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
      if (entries.size > 50_000 && now - sweptAt > 5_000) await this.sweep();
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
      sweptAt = now;
      for (const [key, entry] of entries) if (entry.resetAt <= now) entries.delete(key);
    },
    async flush() {},
    async close() {},
  };
}

export function postgresCounters(repo: CountersRepo, clock: Clock, options?: AheadOptions): Counters {
  return countAhead(
    {
      kind: 'postgres',
      async addHits(batch) {
        const now = clock.now();
        const rows = await repo.hitMany(
          batch.map(({ key, windowMs, delta }) => ({
            key,
            delta,
            reset: new Date(now.getTime() + windowMs),
          })),
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
    },
    clock,
    options,
  );
}

/** Count and expire in one step, so two nodes never both start a window. */
const HIT = `local c = redis.call('INCRBY', KEYS[1], ARGV[2])
if c == tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
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

export function redisCounters(
  redis: Redis,
  prefix = 'moat:',
  options?: AheadOptions & { clock?: Clock },
): Counters {
  const store: SharedStore = {
    kind: 'redis',
    async addHits(batch) {
      const pipeline = redis.pipeline();
      for (const { key, windowMs, delta } of batch)
        pipeline.eval(HIT, 1, `${prefix}hit:${key}`, windowMs, delta);
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
  return countAhead(store, options?.clock ?? { now: () => new Date() }, options);
}

export interface AheadOptions {
  /** How long hits counted ahead wait before they go to the shared store together (default 50 ms). */
  flushMs?: number;
  /** A flush that failed (its hits are not counted again). */
  onError?: (error: unknown) => void;
}

/**
 * Hits counted on this node first and sent to the shared store together, one statement per
 * `flushMs`, so a request far from its limit costs no round trip. A hit without a `limit`, or whose
 * count here (the store's count at its last answer plus this node's hits since) passes half its
 * limit, goes to the store at once and is answered with the store's count: a limit is decided on
 * the count every node shares.
 *
 * A key's first hits stay on this node until they reach a twentieth of its limit (one, for a limit
 * under 40): a crowd of addresses that each call once or twice (recipients opening their links)
 * costs the store nothing, and a key that gets busy is in the store long before its limit matters.
 * A node learns what the others counted at each answer from the store, at least once per `flushMs`
 * while a key is busy here. So past a limit the cluster admits at most, per other node, the hits
 * it keeps to itself (under a twentieth of the limit) or counts on a stale figure (one flush
 * interval's worth, and under half the limit).
 */
function countAhead(store: SharedStore, clock: Clock, options: AheadOptions = {}): Counters {
  const flushMs = options.flushMs ?? 50;
  /** Per key: the store's count at its last answer, this node's hits since, the window's end. */
  const entries = new Map<string, { known: number; pending: number; windowMs: number; resetAt: number }>();
  /** The keys whose hits go to the store at the next flush. */
  const waiting = new Set<string>();
  /** The hits of a key this node keeps to itself before it shares them. */
  const publishAt = (limit: number) => Math.max(1, Math.floor(limit / 20));
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();

  const entryOf = (key: string, windowMs: number, now: number) => {
    let entry = entries.get(key);
    if (!entry || entry.resetAt <= now) {
      entry = { known: 0, pending: 0, windowMs, resetAt: now + windowMs };
      entries.set(key, entry);
    }
    return entry;
  };
  /** Send these keys' pending hits; each entry learns the store's count. */
  const send = async (keys: string[]): Promise<Map<string, HitCount>> => {
    const batch: HitBatch[] = [];
    for (const key of keys) {
      const entry = entries.get(key);
      if (!entry || entry.pending === 0) continue;
      batch.push({ key, windowMs: entry.windowMs, delta: entry.pending });
      entry.pending = 0;
      waiting.delete(key);
    }
    const out = new Map<string, HitCount>();
    if (batch.length === 0) return out;
    const counts = await store.addHits(batch);
    const now = clock.now().getTime();
    batch.forEach(({ key }, i) => {
      const count = counts[i]!;
      const entry = entries.get(key);
      if (entry) {
        entry.known = count.count;
        entry.resetAt = now + count.ttlMs;
      }
      out.set(key, count);
    });
    return out;
  };
  const flushAll = () => {
    timer = null;
    const keys = [...waiting];
    const run = async () => {
      // A few hundred keys per statement.
      for (let i = 0; i < keys.length; i += 500) await send(keys.slice(i, i + 500));
    };
    flushing = flushing.then(run).catch((error) => options.onError?.(error));
    return flushing;
  };
  const schedule = () => {
    if (timer) return;
    timer = setTimeout(flushAll, flushMs);
    timer.unref();
  };
  /**
   * What this node knows of a key is a cache: past `MAX_KNOWN` keys the oldest go, with the hits
   * it kept to itself (fewer than a twentieth of the limit); hits due at the next flush stay.
   */
  const MAX_KNOWN = 10_000;
  const forgetExpired = () => {
    const now = clock.now().getTime();
    for (const [key, entry] of entries) if (entry.resetAt <= now && !waiting.has(key)) entries.delete(key);
  };
  /** Down to 80 % of `MAX_KNOWN`, the keys first heard of longest ago first. */
  const forgetOldest = () => {
    let excess = entries.size - MAX_KNOWN * 0.8;
    for (const key of entries.keys()) {
      if (excess <= 0) break;
      if (waiting.has(key)) continue;
      entries.delete(key);
      excess--;
    }
  };

  return {
    ...store,
    async hit(key, windowMs, limit) {
      const [count] = await this.hitMany([{ key, windowMs, limit }]);
      return count!;
    },
    async hitMany(requests) {
      const now = clock.now().getTime();
      if (entries.size > MAX_KNOWN) forgetOldest();
      const out: HitCount[] = [];
      const atOnce: string[] = [];
      for (const { key, windowMs, limit } of requests) {
        const entry = entryOf(key, windowMs, now);
        entry.pending += 1;
        if (limit === undefined || entry.known > 0 || entry.pending >= publishAt(limit)) waiting.add(key);
        const count = entry.known + entry.pending;
        out.push({ count, ttlMs: entry.resetAt - now });
        if (limit === undefined || count * 2 > limit) atOnce.push(key);
      }
      if (atOnce.length === 0) {
        schedule();
        return out;
      }
      const counted = await send(atOnce);
      return requests.map(({ key }, i) => counted.get(key) ?? out[i]!);
    },
    async hits(key) {
      return (await store.hits(key)) + (entries.get(key)?.pending ?? 0);
    },
    async sweep() {
      forgetExpired();
      await store.sweep();
    },
    flush: () => {
      if (timer) clearTimeout(timer);
      return flushAll();
    },
    async close() {
      await this.flush();
      await store.close();
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
    incr(key: string, callback: Callback, timeWindow: number, max?: number) {
      counters.hit(`${this.prefix}${key}`, timeWindow, max).then(
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
