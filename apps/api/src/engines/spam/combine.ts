import { dnsFailed, UNRESOLVED_ONLY_SYMBOLS } from '../rspamd.ts';
import type { EngineKnowledge, ScoredRule } from '../types.ts';
import { EMBEDDED_ENGINE } from './embedded.ts';

/**
 * How the scoring engines' scores (Moat's own, rspamd's, SpamAssassin's) make the message's one
 * spam score. Each engine's score counts for what that engine knew about the message, never by a
 * fixed discount of one engine:
 * - An engine's rules always count in full. An rspamd without Bayes training and without its
 *   network lookups (a fresh install) scores by its local rules only, and those count; so do Moat's.
 * - Bayes: when two or more engines' Bayes classifiers judged the message (a BAYES_* rule that
 *   scored), they judged the same words, and adding them all would count those words two or three
 *   times. The strongest Bayes counts in full, each other one by BAYES_BESIDE_ANOTHER.
 * - DNS: when rspamd could not reach its DNS (a lookup failed, not "not found"), its symbols that
 *   only say "this name does not resolve" are about its resolver, not the message: they count 0.
 * Everything here is read from the engines' scores and rules as the message trace keeps them, so the
 * trace recomputes exactly the score the gateway judged.
 */

/**
 * What another Bayes part counts beside the strongest one. Chosen on the training part of the
 * corpus only (bench/tune-combination.ts: four folds, each scored by what the other three taught
 * Moat's classifier, rspamd's and SpamAssassin's Bayes), never on the held-out part.
 */
export const BAYES_BESIDE_ANOTHER = 0.5;

/** A scoring engine's finding as the combination reads it (the gateway's, or the trace's stored copy). */
export interface ScoringFinding {
  engine: string;
  score?: number | undefined;
  rules?: ScoredRule[] | undefined;
  knowledge?: EngineKnowledge | undefined;
}

/** One engine's share of the message's spam score. */
export interface SpamPart {
  engine: string;
  /** Its own score. */
  score: number;
  /** What of it counts in the message's score. */
  counted: number;
  /** counted / score (1 when the score counts as it is), for the trace's "× weight". */
  weight: number;
  /** Why it counts as it does, in words ("its Bayes 6 counts × 0.5: rspamd's Bayes judged the same words"). */
  notes: string[];
}

const ENGINE_WORDS: Record<string, string> = {
  [EMBEDDED_ENGINE]: 'Moat',
  rspamd: 'rspamd',
  spamassassin: 'SpamAssassin',
};
export const engineWords = (engine: string) => ENGINE_WORDS[engine] ?? engine;

const round = (n: number) => Math.round(n * 100) / 100 + 0;
const isBayes = (rule: ScoredRule) => rule.name.startsWith('BAYES_') && rule.score !== 0;
/** The part of an engine's score its Bayes classifier gave (0 when its Bayes did not judge). */
export const bayesPart = (rules: readonly ScoredRule[] = []) =>
  round(rules.filter(isBayes).reduce((sum, r) => sum + r.score, 0));

/** Each engine's share of the message's spam score, and why. */
export function spamParts(
  scores: readonly ScoringFinding[],
  besideAnother: number = BAYES_BESIDE_ANOTHER,
): SpamPart[] {
  const bayes = scores.map((f) => bayesPart(f.rules));
  const judged = bayes.map((b, i) => (b !== 0 ? i : -1)).filter((i) => i >= 0);
  // The strongest Bayes (the largest effect; the first engine on a tie) counts in full.
  const strongest = judged.reduce<number>(
    (best, i) => (best < 0 || Math.abs(bayes[i]!) > Math.abs(bayes[best]!) ? i : best),
    -1,
  );
  return scores.map((f, i) => {
    const score = f.score ?? 0;
    const notes: string[] = [];
    let counted = score;
    const rules = f.rules ?? [];
    if (f.engine === 'rspamd' && (f.knowledge?.lookups === 'unreachable' || dnsFailed(rules))) {
      const unresolved = rules.filter((r) => UNRESOLVED_ONLY_SYMBOLS.has(r.name) && r.score !== 0);
      const off = round(unresolved.reduce((sum, r) => sum + r.score, 0));
      if (off !== 0) {
        counted -= off;
        notes.push(
          `rspamd could not reach DNS: ${unresolved.map((r) => r.name).join(', ')} (${off}) do not count`,
        );
      }
    }
    if (judged.length > 1 && i !== strongest && judged.includes(i)) {
      counted -= (1 - besideAnother) * bayes[i]!;
      notes.push(
        `its Bayes ${bayes[i]} counts × ${besideAnother}: ${engineWords(scores[strongest]!.engine)}'s Bayes judged the same words`,
      );
    }
    if (f.knowledge?.bayes === 'untrained')
      notes.push('its Bayes is not trained: its score counts without Bayes');
    counted = round(counted);
    return {
      engine: f.engine,
      score,
      counted,
      weight: score === 0 || counted === score ? 1 : round(counted / score),
      notes,
    };
  });
}

/** The message's one spam score: each scoring engine's score as it counts (spamParts). */
export function combinedSpamScore(scores: readonly ScoringFinding[], besideAnother?: number): number {
  return round(spamParts(scores, besideAnother).reduce((sum, p) => sum + p.counted, 0));
}
