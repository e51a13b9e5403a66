/**
 * How the scoring engines' scores should add up (engines/spam/combine.ts), looked at on the
 * training part of the corpus only: four folds take turns, three teaching Moat's classifier,
 * rspamd's Bayes and SpamAssassin's, the fourth scored by Moat, by a fresh rspamd (nothing learned,
 * offline: a new install), by the same rspamd once trained, and by SpamAssassin. Each set of
 * weights (CombinationWeights, in quarters) is judged at the default thresholds against the goal
 * of issue 35 for each pairing with Moat: more spam caught than the best of its engines alone, no
 * more ham flagged than the fewest any of them alone flags, over the training part (each fold is
 * shown too). The pick: the weights that hold it for the most pairings, then the most gain.
 * The held-out part is never read here.
 * Run: node --import tsx bench/tune-combination.ts   (--again: scan again instead of reusing
 * bench/results/tune-combination.tmp, the scores of the last run)
 */
import fs from 'node:fs';
import path from 'node:path';
import { engineInputOf } from '../apps/api/src/engines/engine-input.ts';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { type CombinationWeights, combinedSpamScore } from '../apps/api/src/engines/spam/combine.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, createEmbeddedSpam } from '../apps/api/src/engines/spam/embedded.ts';
import { createSpamd } from '../apps/api/src/engines/spamd.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { startRspamd } from '../apps/api/src/test/daemons/rspamd.ts';
import { startSpamd } from '../apps/api/src/test/daemons/spamd.ts';
import { offlineRspamd, type Scored, scoredBy, train } from './detection.ts';

const QUARTERS = [0, 0.25, 0.5, 0.75, 1];
const CANDIDATES: CombinationWeights[] = QUARTERS.filter((b) => b > 0).flatMap((bayesBesideAnother) =>
  QUARTERS.filter((j) => j > 0).flatMap((judged) =>
    QUARTERS.map((notJudged) => ({ bayesBesideAnother, rulesBesideMoat: { judged, notJudged } })),
  ),
);
const FOLDS = 4;
const ROWS = path.join(import.meta.dirname, 'results', 'tune-combination.tmp');

interface Row {
  fold: number;
  label: 'spam' | 'ham';
  moat: Scored;
  rspamdFresh: Scored;
  rspamdTrained: Scored;
  spamassassin: Scored;
}

async function scan(): Promise<Row[]> {
  const training = corpusMessages('train');
  const rows: Row[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const started = Date.now();
    const teach = training.filter((_, i) => i % FOLDS !== fold);
    const scored = training.filter((_, i) => i % FOLDS === fold);
    const model = new MemoryTable();
    for (const m of teach) {
      model.learn(new Set(analyse({ ...(await engineInputOf(m.raw)), auth: null }).keys), m.label);
    }
    const inputs = await Promise.all(scored.map((m) => engineInputOf(m.raw)));
    const moat = await scoredBy('moat_spam', createEmbeddedSpam({ model }), inputs);
    const rspamdDaemon = await startRspamd({ redisDb: 9, offline: true });
    const spamdDaemon = await startSpamd();
    try {
      const rspamd = offlineRspamd(rspamdDaemon);
      await rspamd.refreshBayesState();
      const rspamdFresh = await scoredBy('rspamd', rspamd, inputs);
      await train(rspamd.learn, teach);
      await rspamd.refreshBayesState();
      const rspamdTrained = await scoredBy('rspamd', rspamd, inputs);
      const spamd = createSpamd({ url: spamdDaemon.url, timeoutMs: 60_000 });
      await train(spamd.learn, teach);
      const spamassassin = await scoredBy('spamassassin', spamd, inputs);
      for (const [i, m] of scored.entries()) {
        rows.push({
          fold,
          label: m.label,
          moat: moat[i]!,
          rspamdFresh: rspamdFresh[i]!,
          rspamdTrained: rspamdTrained[i]!,
          spamassassin: spamassassin[i]!,
        });
      }
    } finally {
      await rspamdDaemon.stop();
      await spamdDaemon.stop();
    }
    console.log(
      `fold ${fold}: ${scored.length} messages scored in ${Math.round((Date.now() - started) / 1000)} s`,
    );
  }
  return rows;
}

const again = process.argv.includes('--again') || !fs.existsSync(ROWS);
const rows: Row[] = again ? await scan() : JSON.parse(fs.readFileSync(ROWS, 'utf8'));
if (again) {
  fs.mkdirSync(path.dirname(ROWS), { recursive: true });
  fs.writeFileSync(ROWS, JSON.stringify(rows));
}

type Source = 'moat' | 'rspamdFresh' | 'rspamdTrained' | 'spamassassin';
const flagged = (of: Row[], label: string, uses: Source[], weights?: CombinationWeights) =>
  of.filter(
    (r) =>
      r.label === label &&
      combinedSpamScore(
        uses.map((u) => r[u]),
        weights,
      ) >= DEFAULT_SPAM_THRESHOLDS.suspicious,
  ).length;
const folds = Array.from({ length: FOLDS }, (_, fold) => rows.filter((r) => r.fold === fold));
const words = (of: Row[], uses: Source[], weights?: CombinationWeights) =>
  `${flagged(of, 'spam', uses, weights)} spam caught, ${flagged(of, 'ham', uses, weights)} ham flagged`;
const perFold = (uses: Source[], weights?: CombinationWeights) =>
  folds.map((f) => `${flagged(f, 'spam', uses, weights)}/${flagged(f, 'ham', uses, weights)}`).join(' ');

const PAIRINGS: Source[][] = [
  ['moat', 'rspamdFresh'],
  ['moat', 'rspamdTrained'],
  ['moat', 'spamassassin'],
  ['moat', 'rspamdTrained', 'spamassassin'],
];
const totals = (label: string) => rows.filter((r) => r.label === label).length;
console.log(`${rows.length} training messages: ${totals('spam')} spam, ${totals('ham')} ham`);
for (const alone of ['moat', 'rspamdFresh', 'rspamdTrained', 'spamassassin'] as Source[]) {
  console.log(`${alone} alone: ${words(rows, [alone])} (per fold, caught/flagged: ${perFold([alone])})`);
}

const judge = (weights: CombinationWeights) => {
  let holds = 0;
  let gain = 0;
  for (const uses of PAIRINGS) {
    const caught = flagged(rows, 'spam', uses, weights);
    const ham = flagged(rows, 'ham', uses, weights);
    const bestCaught = Math.max(...uses.map((u) => flagged(rows, 'spam', [u])));
    const fewestHam = Math.min(...uses.map((u) => flagged(rows, 'ham', [u])));
    if (caught > bestCaught && ham <= fewestHam) holds++;
    gain += caught - bestCaught + fewestHam - ham;
  }
  return { holds, gain };
};
const name = (w: CombinationWeights) =>
  `Bayes beside another × ${w.bayesBesideAnother}, rules beside Moat's × ${w.rulesBesideMoat.judged} (× ${w.rulesBesideMoat.notJudged} when its Bayes did not judge)`;
const ranked = CANDIDATES.map((weights) => ({ weights, ...judge(weights) })).sort(
  (a, b) => b.holds - a.holds || b.gain - a.gain,
);
for (const { weights, holds, gain } of ranked.slice(0, 8)) {
  console.log(`${name(weights)}: the goal holds for ${holds} of ${PAIRINGS.length} pairings, gain ${gain}`);
  for (const uses of PAIRINGS)
    console.log(`  ${uses.join(' + ')}: ${words(rows, uses, weights)} (${perFold(uses, weights)})`);
}
// What plain addition (every weight 1) and Moat cut to a quarter beside others would do, for comparison.
const plain = { bayesBesideAnother: 1, rulesBesideMoat: { judged: 1, notJudged: 1 } };
console.log('Plain addition:');
for (const uses of PAIRINGS)
  console.log(`  ${uses.join(' + ')}: ${words(rows, uses, plain)} (${perFold(uses, plain)})`);
console.log(`Pick: ${name(ranked[0]!.weights)}`);
