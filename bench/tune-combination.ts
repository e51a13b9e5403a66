/**
 * How much Moat's own score should count beside rspamd's (issue 13), looked at on the training
 * part only: its two halves take turns, one teaching Moat's classifier and rspamd's Bayes, the
 * other scored. For each pair of weights the combined score is rspamd's + w × Moat's, w taken
 * by the sign of Moat's score, judged at the default thresholds. The held-out part is never read here.
 * Run: node --import tsx bench/tune-combination.ts
 */
import { engineInputOf } from '../apps/api/src/engines/engine-input.ts';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, createEmbeddedSpam } from '../apps/api/src/engines/spam/embedded.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { startRspamd } from '../apps/api/src/test/daemons/rspamd.ts';
import { offlineRspamd, scoresOf, train } from './detection.ts';

/** Moat's weight when its score is positive (spam side) and when it is not (ham side). */
const SPAM_WEIGHTS = [0, 0.25, 0.5, 0.75, 1];
/**
 * At most 1: a message stuffed with words of wanted mail (Bayes poisoning) must not take more off
 * rspamd's score than Moat's own strongest ham band (BAYES_00, -3 points).
 */
const HAM_WEIGHTS = [0.25, 0.5, 1];
/** The training part in turns: each fold scored by what the others taught. */
const FOLDS = 4;
const training = corpusMessages('train');
const rows: Array<{ fold: number; label: string; moat: number; rspamd: number }> = [];

for (let fold = 0; fold < FOLDS; fold++) {
  const teach = training.filter((_, i) => i % FOLDS !== fold);
  const scored = training.filter((_, i) => i % FOLDS === fold);
  const model = new MemoryTable();
  for (const m of teach) {
    model.learn(new Set(analyse({ ...(await engineInputOf(m.raw)), auth: null }).keys), m.label);
  }
  const inputs = await Promise.all(scored.map((m) => engineInputOf(m.raw)));
  const moat = await scoresOf(createEmbeddedSpam({ model }), inputs);
  const daemon = await startRspamd({ redisDb: 9, offline: true });
  try {
    const rspamd = offlineRspamd(daemon);
    await train(rspamd.learn, teach);
    const r = await scoresOf(rspamd, inputs);
    for (const [i, m] of scored.entries()) rows.push({ fold, label: m.label, moat: moat[i]!, rspamd: r[i]! });
  } finally {
    await daemon.stop();
  }
}

type Row = (typeof rows)[number];
const count = (of: Row[], label: string, total: (r: Row) => number) =>
  of.filter((r) => r.label === label && total(r) >= DEFAULT_SPAM_THRESHOLDS.suspicious).length;
const rate = (of: Row[], label: string, total: (r: Row) => number) => {
  const n = count(of, label, total);
  return `${((100 * n) / of.filter((r) => r.label === label).length).toFixed(1)} % (${n})`;
};
const folds = Array.from({ length: FOLDS }, (_, fold) => rows.filter((r) => r.fold === fold));
const line = (name: string, total: (r: Row) => number) => {
  const each = folds.map((f, i) => `fold ${i}: ${rate(f, 'spam', total)}, ${rate(f, 'ham', total)}`);
  console.log(
    `${name}: ${rate(rows, 'spam', total)} caught, ${rate(rows, 'ham', total)} ham flagged (${each.join('; ')})`,
  );
};
const rspamdAlone = (r: Row) => r.rspamd;
line('Moat alone', (r) => r.moat);
line('rspamd alone', rspamdAlone);

/**
 * The pick, by the goal of issue 13 (catch at least what rspamd alone catches, at no more ham
 * flagged) held in every fold: of the pairs that do, the one that gains most over rspamd alone
 * (spam caught more plus ham flagged less), a tie going to fewer ham flagged.
 */
let pick: { spam: number; ham: number; gain: number; flagged: number } | undefined;
for (const spam of SPAM_WEIGHTS) {
  for (const ham of HAM_WEIGHTS) {
    const total = (r: Row) => r.rspamd + (r.moat > 0 ? spam : ham) * r.moat;
    line(`rspamd + Moat × ${spam} (spam side), × ${ham} (ham side)`, total);
    const holds = folds.every(
      (f) =>
        count(f, 'spam', total) >= count(f, 'spam', rspamdAlone) &&
        count(f, 'ham', total) <= count(f, 'ham', rspamdAlone),
    );
    const flagged = count(rows, 'ham', total);
    const gain =
      count(rows, 'spam', total) -
      count(rows, 'spam', rspamdAlone) +
      count(rows, 'ham', rspamdAlone) -
      flagged;
    if (holds && (!pick || gain > pick.gain || (gain === pick.gain && flagged < pick.flagged)))
      pick = { spam, ham, gain, flagged };
  }
}
console.log(
  pick
    ? `Pick: × ${pick.spam} (spam side), × ${pick.ham} (ham side)`
    : 'No pair holds the goal in every fold',
);
