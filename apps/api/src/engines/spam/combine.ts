import { EMBEDDED_ENGINE } from './embedded.ts';

/**
 * How much Moat's own score counts when rspamd or SpamAssassin scored the message too. Both of
 * those carry their own Bayes classifier, so Moat's evidence that a message is spam would judge the
 * same words twice: it counts a quarter. Its evidence that a message is ham (a negative score, at
 * most -3 points) counts in full: it keeps wanted mail out of quarantine when another engine's
 * rules misfire, and no more than that, so stuffing a message with ham words cannot buy more.
 * Chosen on the training part of the corpus only (bench/tune-combination.ts, four folds, run three
 * times since rspamd's scores vary a little between runs): the pair that held the goal of catching
 * at least what rspamd alone catches at no more ham flagged in every fold of every run, with the
 * most gain (0.25 and 1: 309–313 against 304–308 of 333 spam caught, 11–12 against 14–16 of 1,811
 * ham flagged; a spam-side 0.5 flagged more ham than rspamd alone in a fold of two runs of three).
 */
export const EMBEDDED_WEIGHT_BESIDE_OTHERS = { spam: 0.25, ham: 1 } as const;

/** The weight of one engine's score in the message's one spam score. */
export function spamWeightOf(engine: string, score: number, engines: readonly string[]): number {
  if (engine !== EMBEDDED_ENGINE || !engines.some((e) => e !== EMBEDDED_ENGINE)) return 1;
  return score > 0 ? EMBEDDED_WEIGHT_BESIDE_OTHERS.spam : EMBEDDED_WEIGHT_BESIDE_OTHERS.ham;
}

/** The message's one spam score: the scoring engines' scores, each by its weight. */
export function combinedSpamScore(scores: ReadonlyArray<{ engine: string; score?: number }>): number {
  const engines = scores.map((s) => s.engine);
  const total = scores.reduce((sum, s) => {
    const score = s.score ?? 0;
    return sum + spamWeightOf(s.engine, score, engines) * score;
  }, 0);
  return Math.round(total * 100) / 100;
}
