/**
 * How the scoring engines' scores should add up (engines/spam/combine.ts), looked at on the
 * training part of the corpus only: four folds take turns, three teaching Moat's classifier,
 * rspamd's Bayes and SpamAssassin's, the fourth scored by Moat, by a fresh rspamd (nothing learned,
 * offline: a new install), by the same rspamd once trained, and by SpamAssassin. Each way of
 * counting a second Bayes (BAYES_BESIDE_ANOTHER) is judged at the default thresholds against the
 * goal of issue 35: together, at least what the best engine alone catches, at no more ham flagged
 * than the best alone flags, in every fold. The held-out part is never read here.
 * Run: node --import tsx bench/tune-combination.ts   (--again: scan again instead of reusing
 * bench/results/tune-combination.tmp, the scores of the last run)
 */
import fs from 'node:fs';
import path from 'node:path';
import { engineInputOf } from '../apps/api/src/engines/engine-input.ts';
import { MemoryTable } from '../apps/api/src/engines/spam/bayes.ts';
import { combinedSpamScore } from '../apps/api/src/engines/spam/combine.ts';
import { corpusMessages } from '../apps/api/src/engines/spam/corpus.ts';
import { analyse, createEmbeddedSpam } from '../apps/api/src/engines/spam/embedded.ts';
import { createSpamd } from '../apps/api/src/engines/spamd.ts';
import { DEFAULT_SPAM_THRESHOLDS } from '../apps/api/src/engines/types.ts';
import { startRspamd } from '../apps/api/src/test/daemons/rspamd.ts';
import { startSpamd } from '../apps/api/src/test/daemons/spamd.ts';
import { offlineRspamd, type Scored, scoredBy, train } from './detection.ts';

/** What a second (third) Bayes counts beside the strongest: none, a quarter … all of it. */
const CANDIDATES = [0, 0.25, 0.5, 0.75, 1];
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
const flagged = (of: Row[], label: string, uses: Source[], beside?: number) =>
  of.filter(
    (r) =>
      r.label === label &&
      combinedSpamScore(
        uses.map((u) => r[u]),
        beside,
      ) >= DEFAULT_SPAM_THRESHOLDS.suspicious,
  ).length;
const folds = Array.from({ length: FOLDS }, (_, fold) => rows.filter((r) => r.fold === fold));
const words = (of: Row[], uses: Source[], beside?: number) =>
  `${flagged(of, 'spam', uses, beside)} spam caught, ${flagged(of, 'ham', uses, beside)} ham flagged`;

const COMBINATIONS: Source[][] = [
  ['moat', 'rspamdFresh'],
  ['moat', 'rspamdTrained'],
  ['moat', 'spamassassin'],
  ['moat', 'rspamdTrained', 'spamassassin'],
];
const totals = (label: string) => rows.filter((r) => r.label === label).length;
console.log(`${rows.length} training messages: ${totals('spam')} spam, ${totals('ham')} ham`);
for (const alone of ['moat', 'rspamdFresh', 'rspamdTrained', 'spamassassin'] as Source[]) {
  console.log(`${alone} alone: ${words(rows, [alone])} (${folds.map((f) => words(f, [alone])).join('; ')})`);
}

/**
 * The goal, per fold: caught at least what the best of its engines alone catches, and ham flagged
 * no more than the fewest any of them alone flags. Scored per candidate: the folds and
 * combinations where it holds, then the gain over the best engine alone (spam caught more plus
 * ham flagged less), summed.
 */
let pick: { beside: number; holds: number; gain: number } | undefined;
for (const beside of CANDIDATES) {
  let holds = 0;
  let gain = 0;
  for (const uses of COMBINATIONS) {
    for (const f of folds) {
      const caught = flagged(f, 'spam', uses, beside);
      const ham = flagged(f, 'ham', uses, beside);
      const bestCaught = Math.max(...uses.map((u) => flagged(f, 'spam', [u])));
      const fewestHam = Math.min(...uses.map((u) => flagged(f, 'ham', [u])));
      if (caught >= bestCaught && ham <= fewestHam) holds++;
      gain += caught - bestCaught + fewestHam - ham;
    }
    console.log(
      `× ${beside}: ${uses.join(' + ')}: ${words(rows, uses, beside)} (${folds.map((f) => words(f, uses, beside)).join('; ')})`,
    );
  }
  console.log(`× ${beside}: the goal holds in ${holds} of ${COMBINATIONS.length * FOLDS}, gain ${gain}`);
  if (!pick || holds > pick.holds || (holds === pick.holds && gain > pick.gain))
    pick = { beside, holds, gain };
}
console.log(
  `Pick: a second Bayes counts × ${pick!.beside} (the goal held in ${pick!.holds} of ${COMBINATIONS.length * FOLDS})`,
);
