import { postgresCounters } from '../../apps/api/src/lib/counters.ts';
const repo = { hitMany: async (keys: any[]) => { await new Promise(r => setTimeout(r, 2)); return keys.map((k) => ({ count: k.delta, resetAt: new Date(Date.now() + 60000) })); } } as any;
const c = postgresCounters(repo, { now: () => new Date() });
const t0 = performance.now();
for (let i = 0; i < 60000; i++) {
  await c.hitMany([{ key: `a:${i}`, windowMs: 60000, limit: 3000 }, { key: `l:${i}`, windowMs: 60000, limit: 10 }]);
  if (i % 50 === 0) await new Promise((r) => setImmediate(r));
  if (i % 10000 === 0) console.log(i, (performance.now() - t0).toFixed(0));
}
console.log('total', (performance.now() - t0).toFixed(0));
