/**
 * How much Moat's own score should count beside rspamd's (issue 13), looked at on the training
 * part only: its two halves take turns, one teaching Moat's classifier and rspamd's Bayes, the
 * other scored. For each weight w the combined score is rspamd's + w × Moat's, judged at the
 * default thresholds. The held-out part is never read here.
 * Run: node --import tsx bench/tune-combination.ts
 */
import { engineInputOf } from '../apps/api/src/engines/engine-input.ts';
import { createRspamdEngine } from '../apps/api/src/engines/rspamd.ts';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, createEmbeddedSpam } from '../apps/api/src/engines/spam/embedded.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { startRspamd } from '../apps/api/src/test/daemons/rspamd.ts';
import { OFFLINE_ONLY, scoresOf, train } from './detection.ts';

const WEIGHTS = [0, 0.25, 0.5, 0.75, 1];
const training = corpusMessages('train');
const rows: Array<{ label: string; moat: number; rspamd: number }> = [];

for (const fold of [0, 1]) {
  const teach = training.filter((_, i) => i % 2 !== fold);
  const scored = training.filter((_, i) => i % 2 === fold);
  const model = new MemoryTable();
  for (const m of teach) {
    model.learn(new Set(analyse({ ...(await engineInputOf(m.raw)), auth: null }).keys), m.label);
  }
  const inputs = await Promise.all(scored.map((m) => engineInputOf(m.raw)));
  const moat = await scoresOf(createEmbeddedSpam({ model }), inputs);
  const daemon = await startRspamd({ redisDb: 9, offline: true });
  try {
    const rspamd = createRspamdEngine({
      url: daemon.url,
      controllerUrl: daemon.controllerUrl,
      password: daemon.password,
      timeoutMs: 60_000,
      scores: OFFLINE_ONLY,
    });
    await train(rspamd.learn, teach);
    const r = await scoresOf(rspamd, inputs);
    for (const [i, m] of scored.entries()) rows.push({ label: m.label, moat: moat[i]!, rspamd: r[i]! });
  } finally {
    await daemon.stop();
  }
}

const rate = (label: string, total: (r: (typeof rows)[number]) => number) => {
  const of = rows.filter((r) => r.label === label);
  const n = of.filter((r) => total(r) >= DEFAULT_SPAM_THRESHOLDS.suspicious).length;
  return `${((100 * n) / of.length).toFixed(1)} % (${n}/${of.length})`;
};
console.log(`Moat alone: ${rate('spam', (r) => r.moat)} caught, ${rate('ham', (r) => r.moat)} ham flagged`);
console.log(
  `rspamd alone: ${rate('spam', (r) => r.rspamd)} caught, ${rate('ham', (r) => r.rspamd)} ham flagged`,
);
for (const w of WEIGHTS) {
  const total = (r: (typeof rows)[number]) => r.rspamd + w * r.moat;
  console.log(`rspamd + ${w} × Moat: ${rate('spam', total)} caught, ${rate('ham', total)} ham flagged`);
}
