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
import { createAntiPhishing } from '../apps/api/src/engines/anti-phishing.ts';
import { engineInputOf } from '../apps/api/src/engines/engine-input.ts';
import { closeAttachmentLures } from '../apps/api/src/engines/lures/index.ts';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import {
  COMBINATION_WEIGHTS,
  type CombinationWeights,
  combinedSpamScore,
} from '../apps/api/src/engines/spam/combine.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, createEmbeddedSpam } from '../apps/api/src/engines/spam/embedded.ts';
import { createSpamd } from '../apps/api/src/engines/spamd.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { startRspamd } from '../apps/api/src/test/daemons/rspamd.ts';
import { startSpamd } from '../apps/api/src/test/daemons/spamd.ts';
import { offlineRspamd, phishingInput, phishingPart, type Scored, scoredBy, train } from './detection.ts';

const QUARTERS = [0, 0.25, 0.5, 0.75, 1];
/** The points of another engine's spam rules that do not count beside Moat's. */
const BEYOND = [0, 2, 3, 3.5, 4, 4.5, 5, 6];
const CANDIDATES: CombinationWeights[] = QUARTERS.filter((b) => b > 0).flatMap((spam) =>
  [0.5, 1].flatMap((ham) =>
    BEYOND.flatMap((beyond) =>
      QUARTERS.filter((j) => j > 0).flatMap((judged) =>
        QUARTERS.map((notJudged) => ({
          bayesBesideAnother: { spam, ham },
          rulesBesideMoat: { beyond, judged, notJudged },
        })),
      ),
    ),
  ),
);
const FOLDS = 4;
const ROWS = path.join(import.meta.dirname, 'results', 'tune-combination.tmp');

interface Row {
  fold: number;
  /** The SpamAssassin corpus's training part, or the phishing corpus's dev set. */
  part: 'spam' | 'phishing';
  label: 'spam' | 'phishing' | 'ham';
  /** Moat's anti-phishing engine holds it (phishing or suspicious), whatever the spam score. */
  antiPhishing: boolean;
  moat: Scored;
  rspamdFresh: Scored;
  rspamdTrained: Scored;
  spamassassin: Scored;
}

async function scan(): Promise<Row[]> {
  const training = corpusMessages('train');
  const dev = (await phishingPart('dev'))?.messages ?? [];
  const devInputs = await Promise.all(dev.map((m) => phishingInput(m)));
  const antiPhishing = createAntiPhishing();
  const devHeld = await Promise.all(
    devInputs.map(async (i) =>
      (await antiPhishing.scan(i)).some((f) => f.score === undefined && f.verdict !== 'clean'),
    ),
  );
  const rows: Row[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const started = Date.now();
    const teach = training.filter((_, i) => i % FOLDS !== fold);
    const scored = training.filter((_, i) => i % FOLDS === fold);
    const model = new MemoryTable();
    for (const m of teach) {
      model.learn(new Set(analyse({ ...(await engineInputOf(m.raw)), auth: null }).keys), m.label);
    }
    // This fold's messages, then the phishing dev set (scored in every fold, by each fold's teaching).
    const inputs = [...(await Promise.all(scored.map((m) => engineInputOf(m.raw)))), ...devInputs];
    const labels = [
      ...scored.map((m) => ({ part: 'spam' as const, label: m.label, antiPhishing: false })),
      ...dev.map((m, i) => ({ part: 'phishing' as const, label: m.label, antiPhishing: devHeld[i]! })),
    ];
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
      for (const [i, m] of labels.entries()) {
        rows.push({
          fold,
          ...m,
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
const spamRows = rows.filter((r) => r.part === 'spam');
const devRows = rows.filter((r) => r.part === 'phishing' && r.fold === 0);
/** Held by the system of these engines: its one spam score from 4, or (with Moat) Moat's anti-phishing. */
const held = (r: Row, uses: Source[], weights?: CombinationWeights) =>
  (uses.includes('moat') && r.antiPhishing) ||
  combinedSpamScore(
    uses.map((u) => r[u]),
    weights,
  ) >= DEFAULT_SPAM_THRESHOLDS.suspicious;
const flagged = (of: Row[], label: string, uses: Source[], weights?: CombinationWeights) =>
  of.filter((r) => r.label === label && held(r, uses, weights)).length;
const folds = Array.from({ length: FOLDS }, (_, fold) => spamRows.filter((r) => r.fold === fold));
const words = (of: Row[], uses: Source[], weights?: CombinationWeights) =>
  `${flagged(of, 'spam', uses, weights)} spam caught, ${flagged(of, 'ham', uses, weights)} ham flagged`;
const phishWords = (uses: Source[], weights?: CombinationWeights) =>
  `phishing dev set: ${flagged(devRows, 'phishing', uses, weights)} of ${devRows.filter((r) => r.label === 'phishing').length} caught, ${flagged(devRows, 'ham', uses, weights)} of ${devRows.filter((r) => r.label === 'ham').length} ham flagged`;
const perFold = (uses: Source[], weights?: CombinationWeights) =>
  folds.map((f) => `${flagged(f, 'spam', uses, weights)}/${flagged(f, 'ham', uses, weights)}`).join(' ');

const PAIRINGS: Source[][] = [
  ['moat', 'rspamdFresh'],
  ['moat', 'rspamdTrained'],
  ['moat', 'spamassassin'],
  ['moat', 'rspamdTrained', 'spamassassin'],
];
const totals = (label: string) => spamRows.filter((r) => r.label === label).length;
console.log(
  `${spamRows.length} training messages: ${totals('spam')} spam, ${totals('ham')} ham; ${devRows.length} of the phishing dev set`,
);
for (const alone of ['moat', 'rspamdFresh', 'rspamdTrained', 'spamassassin'] as Source[]) {
  console.log(
    `${alone} alone: ${words(spamRows, [alone])} (per fold, caught/flagged: ${perFold([alone])}); ${phishWords([alone])}`,
  );
}

/**
 * Per pairing, on the training part: more spam caught than the best of its engines alone, no more
 * ham flagged than the fewest; on the dev set, no phishing lost against the best alone and no more
 * ham flagged than Moat alone. The gain: spam and dev-set phishing caught beyond the best alone,
 * plus ham flagged below the fewest (the dev set's ham against Moat alone: its anti-phishing
 * engine, not the weights, flags most of that).
 */
const judge = (weights: CombinationWeights) => {
  let holds = 0;
  let gain = 0;
  for (const uses of PAIRINGS) {
    const caught = flagged(spamRows, 'spam', uses, weights);
    const ham = flagged(spamRows, 'ham', uses, weights);
    const bestCaught = Math.max(...uses.map((u) => flagged(spamRows, 'spam', [u])));
    const fewestHam = Math.min(...uses.map((u) => flagged(spamRows, 'ham', [u])));
    const devPhishing =
      flagged(devRows, 'phishing', uses, weights) -
      Math.max(...uses.map((u) => flagged(devRows, 'phishing', [u])));
    const devHam = flagged(devRows, 'ham', ['moat']) - flagged(devRows, 'ham', uses, weights);
    if (caught > bestCaught && ham <= fewestHam && devPhishing >= 0 && devHam >= 0) holds++;
    gain += caught - bestCaught + fewestHam - ham + devPhishing + devHam;
  }
  return { holds, gain };
};
const name = (w: CombinationWeights) =>
  `Bayes beside another × ${w.bayesBesideAnother.spam} (spam), × ${w.bayesBesideAnother.ham} (ham); rules beside Moat's beyond ${w.rulesBesideMoat.beyond} points × ${w.rulesBesideMoat.judged} (× ${w.rulesBesideMoat.notJudged} when its Bayes did not judge)`;
const ranked = CANDIDATES.map((weights) => ({ weights, ...judge(weights) })).sort(
  (a, b) => b.holds - a.holds || b.gain - a.gain,
);
const show = (weights: CombinationWeights) => {
  for (const uses of PAIRINGS)
    console.log(
      `  ${uses.join(' + ')}: ${words(spamRows, uses, weights)} (${perFold(uses, weights)}); ${phishWords(uses, weights)}`,
    );
};
for (const { weights, holds, gain } of ranked.slice(0, 8)) {
  console.log(`${name(weights)}: the goal holds for ${holds} of ${PAIRINGS.length} pairings, gain ${gain}`);
  show(weights);
}
console.log('Plain addition:');
show({ bayesBesideAnother: { spam: 1, ham: 1 }, rulesBesideMoat: { beyond: 0, judged: 1, notJudged: 1 } });
console.log('The weights shipped:');
show(COMBINATION_WEIGHTS);
console.log(`Pick: ${name(ranked[0]!.weights)}`);
// The anti-phishing engine's attachment-lure worker would keep the process running.
await closeAttachmentLures();
