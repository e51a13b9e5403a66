import type { Database } from '../db/client.ts';
import type { Clock } from './clock.ts';

/**
 * Caches of what rarely changes (tenants, domains, flags, policies, sender lists, sessions), kept
 * correct with several nodes: the database announces every write to a cached table (triggers of
 * migration 0011, NOTIFY at commit), and each node forgets what the write touched — whichever
 * node, CLI or psql made it. While the notices cannot be heard (the listening connection broke)
 * nothing is cached, and everything is forgotten when they are heard again. A short lifetime per
 * entry bounds anything else (a notice lost in transit).
 *
 * A write made through this node's own repositories is seen by this node at once: the repository
 * calls `forget`, because a notice arrives asynchronously after the commit.
 */
export interface Cache<V> {
  /**
   * The cached value of `key`, or `load()`'s: stored unless it is null or undefined, or a change
   * was announced while it loaded.
   */
  get(key: string, load: () => Promise<V>): Promise<V>;
  /** Replace the cached value of `key` if it is cached (this node changed it itself). */
  update(key: string, change: (value: V) => V): void;
  /** Forget `key`, or everything. */
  forget(key?: string): void;
}

export interface CacheOptions {
  /** The tables whose writes make this cache forget everything. */
  tables: string[];
  /** The table whose notices name a key ("sessions:<key>"): only that key is forgotten. */
  keyedTable?: string;
  ttlMs: number;
  /** Most entries kept; the oldest go first. */
  max?: number;
}

export interface Caches {
  create<V>(name: string, options: CacheOptions): Cache<V>;
  /** Start hearing the database's notices; until then nothing is cached. */
  start(): Promise<void>;
  /** Whether values are being cached (notices heard). */
  readonly active: boolean;
  /** A notice, as the database sends it: "table" or "table:key". */
  changed(payload: string): void;
  stop(): void;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export function createCaches(deps: { database: Pick<Database, 'listen'>; clock: Clock }): Caches {
  const all: Array<{ options: CacheOptions; forget: (key?: string) => void }> = [];
  let listening: () => boolean = () => false;
  let stopped = false;
  const active = () => !stopped && listening();
  const forgetAll = () => {
    for (const c of all) c.forget();
  };

  const caches: Caches = {
    get active() {
      return active();
    },
    create<V>(_name: string, options: CacheOptions): Cache<V> {
      const entries = new Map<string, Entry<V>>();
      // Bumped by every forget: a load that began before a change does not store its answer.
      let generation = 0;
      const max = options.max ?? 10_000;
      const cache: Cache<V> = {
        async get(key, load) {
          const now = deps.clock.now().getTime();
          const hit = entries.get(key);
          if (hit && hit.expiresAt > now) return hit.value;
          if (hit) entries.delete(key);
          if (!active()) return load();
          const started = generation;
          const value = await load();
          // Absence is not cached: unknown keys (a guessed token) must not fill the cache.
          if (value != null && started === generation && active()) {
            if (entries.size >= max) entries.delete(entries.keys().next().value as string);
            entries.set(key, { value, expiresAt: now + options.ttlMs });
          }
          return value;
        },
        update(key, change) {
          const hit = entries.get(key);
          if (hit) hit.value = change(hit.value);
        },
        forget(key) {
          generation++;
          if (key === undefined) entries.clear();
          else entries.delete(key);
        },
      };
      all.push({ options, forget: cache.forget });
      return cache;
    },
    async start() {
      listening = await deps.database.listen((payload) => caches.changed(payload), forgetAll);
    },
    changed(payload) {
      const colon = payload.indexOf(':');
      const table = colon < 0 ? payload : payload.slice(0, colon);
      const key = colon < 0 ? undefined : payload.slice(colon + 1);
      for (const c of all) {
        if (c.options.keyedTable === table) c.forget(key);
        else if (c.options.tables.includes(table)) c.forget();
      }
    },
    stop() {
      stopped = true;
      forgetAll();
    },
  };
  return caches;
}
