import { dnsFailed, UNRESOLVED_ONLY_SYMBOLS } from '../rspamd.ts';
import type { EngineKnowledge, ScoredRule } from '../types.ts';
import { EMBEDDED_ENGINE } from './embedded.ts';

/**
 * How the scoring engines' scores (Moat's own, rspamd's, SpamAssassin's) make the message's one
 * spam score. Each engine's score counts for what that engine knew about the message, never by a
 * fixed discount of Moat's own:
 * - Moat's rules always count in full, beside any engine.
 * - Bayes: when two or more engines' Bayes classifiers judged the message (a BAYES_* rule that
 *   scored), they judged the same words: each one's evidence counts `bayesBesideAnother` (of spam,
 *   of ham), so the words are not counted twice.
 * - Another engine's rules beside Moat's: their first `rulesBesideMoat.beyond` points of spam
 *   evidence do not count. Those are what its rules give the make-up of ordinary mail (an HTML part,
 *   a mailer, one Received line), which Moat's rules and classifier have read already: plain
 *   addition flagged twice the ham of either engine alone. What they score beyond it is evidence
 *   Moat does not have, and counts (by `rulesBesideMoat.judged`, or `.notJudged` when its Bayes
 *   did not judge the message). Their evidence of ham counts in full.
 * - DNS: when rspamd could not reach its DNS (a lookup failed, not "not found"), its symbols that
 *   only say "this name does not resolve" are about its resolver, not the message: they count 0.
 * Everything here is read from the engines' scores and rules as the message trace keeps them, so the
 * trace recomputes exactly the score the gateway judged.
 */

export interface CombinationWeights {
  /** A Bayes's evidence when another engine's Bayes judged the message too: of spam, of ham. */
  bayesBesideAnother: { spam: number; ham: number };
  /**
   * Another engine's rules beside Moat's: the points of spam evidence that do not count, and the
   * weight of the rest when its Bayes judged the message and when it did not.
   */
  rulesBesideMoat: { beyond: number; judged: number; notJudged: number };
}

/**
 * Chosen on the training part of the corpus only (bench/tune-combination.ts: four folds, each
 * scored by what the other three taught Moat's classifier, rspamd's and SpamAssassin's Bayes, a
 * fresh rspamd scored too, and the phishing corpus's dev set), never on the held-out part. Of the
 * weights tried (quarters, a Bayes's ham evidence at a half or in full, rules counting beyond 0
 * to 6 points), these held the goal (more spam caught than the best engine alone, no more ham
 * flagged than the fewest, no dev-set phishing lost, no more dev-set ham flagged than Moat alone)
 * for the most pairings, with the most gain (2026-12-05): 314 of 333 spam caught and 8 of 1,811
 * ham flagged with a fresh rspamd (Moat alone 309 and 8, the fresh rspamd alone 166 and 62), 318
 * and 8 with a trained one (alone 305 and 15), 324 and 6 with SpamAssassin (alone 322 and 12), 324
 * and 9 with all three (one ham more than Moat alone; no weights tried held the goal there).
 * The weights before (rules × 0.5, × 0.25 when its Bayes did not judge, from the first point)
 * held it for two pairings: with SpamAssassin they caught one spam fewer than it alone.
 * Plain addition flagged 14 to 23 ham.
 */
export const COMBINATION_WEIGHTS: CombinationWeights = {
  bayesBesideAnother: { spam: 0.75, ham: 1 },
  rulesBesideMoat: { beyond: 3.5, judged: 1, notJudged: 1 },
};

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
  /** Why it counts as it does, in words ("Bayes 4.5 × 0.5: Moat judged the same words"). */
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
  weights: CombinationWeights = COMBINATION_WEIGHTS,
): SpamPart[] {
  const bayes = scores.map((f) => bayesPart(f.rules));
  const judgedBy = scores.filter((_, i) => bayes[i] !== 0).map((f) => engineWords(f.engine));
  const withMoat = scores.some((f) => f.engine === EMBEDDED_ENGINE);
  return scores.map((f, i) => {
    const score = f.score ?? 0;
    const rules = f.rules ?? [];
    const notes: string[] = [];
    let ownBayes = bayes[i]!;
    // A verdict the engine reached without its rules (rspamd's pre-results: GTUBE, a forced action,
    // where the score is the action's threshold and the deciding symbol scores 0) is what it knew
    // for certain: it counts in full. Group limits only ever make the rules' sum larger than the score.
    const explained = round(rules.reduce((sum, r) => sum + r.score, 0));
    const forced = f.engine !== EMBEDDED_ENGINE && score - explained >= 1 ? round(score - explained) : 0;
    if (forced) notes.push(`${forced} of its verdict came from no rule (a forced action) and counts in full`);
    let ownRules = round(score - ownBayes - forced);
    if (f.engine === 'rspamd' && (f.knowledge?.lookups === 'unreachable' || dnsFailed(rules))) {
      const unresolved = rules.filter((r) => UNRESOLVED_ONLY_SYMBOLS.has(r.name) && r.score !== 0);
      const off = round(unresolved.reduce((sum, r) => sum + r.score, 0));
      if (off !== 0) {
        ownRules = round(ownRules - off);
        notes.push(`its DNS failed: ${unresolved.map((r) => r.name).join(', ')} (${off}) do not count`);
      }
    }
    const bayesWeight = ownBayes > 0 ? weights.bayesBesideAnother.spam : weights.bayesBesideAnother.ham;
    if (ownBayes !== 0 && judgedBy.length > 1 && bayesWeight !== 1) {
      const others = judgedBy.filter((e) => e !== engineWords(f.engine)).join(' and ');
      notes.push(`Bayes ${ownBayes} × ${bayesWeight}: ${others} judged the same words`);
      ownBayes *= bayesWeight;
    }
    if (withMoat && f.engine !== EMBEDDED_ENGINE && ownRules > 0) {
      const { beyond } = weights.rulesBesideMoat;
      const judged = bayes[i] !== 0;
      const weight = judged ? weights.rulesBesideMoat.judged : weights.rulesBesideMoat.notJudged;
      const counts = round(Math.max(0, ownRules - beyond) * weight);
      if (counts !== ownRules) {
        const why = judged
          ? ''
          : f.knowledge?.bayes === 'untrained'
            ? ' (its Bayes is not trained)'
            : ' (its Bayes did not judge it)';
        const share = weight === 1 ? '' : ` × ${weight}${why}`;
        notes.push(
          counts === 0
            ? `rules ${ownRules}: within their first ${beyond} points, the make-up Moat's rules read too; they do not count`
            : `rules ${ownRules}: what is beyond their first ${beyond} points counts${share} (${counts}); the rest is the make-up Moat's rules read too`,
        );
        ownRules = counts;
      }
    }
    const counted = round(ownBayes + ownRules + forced);
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
export function combinedSpamScore(scores: readonly ScoringFinding[], weights?: CombinationWeights): number {
  return round(spamParts(scores, weights).reduce((sum, p) => sum + p.counted, 0));
}
