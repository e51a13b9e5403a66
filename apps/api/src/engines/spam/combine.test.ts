import { describe, expect, it } from 'vitest';
import type { ScoredRule } from '../types.ts';
import { bayesPart, COMBINATION_WEIGHTS, combinedSpamScore, spamParts } from './combine.ts';

const rule = (name: string, score: number): ScoredRule => ({ name, score, description: '' });
/** Two decimals, as the combination keeps its figures. */
const r2 = (n: number) => Math.round(n * 100) / 100;
const { rulesBesideMoat } = COMBINATION_WEIGHTS;
const bayesBesideAnother = COMBINATION_WEIGHTS.bayesBesideAnother.spam;
const hamBesideAnother = COMBINATION_WEIGHTS.bayesBesideAnother.ham;

/** A lure Moat's rules see and its Bayes half believes: a brand from a foreign domain, a mismatched link. */
const moatPhishing = {
  engine: 'moat_spam',
  score: 6.5,
  rules: [
    rule('BRAND_FROM_FOREIGN_DOMAIN', 2.5),
    rule('MISMATCHED_LINK_TEXT', 2),
    rule('BAYES_50', 3),
    rule('HTML_ONLY', -1),
  ],
};

describe('the one spam score', () => {
  it("counts one engine's score as it is", () => {
    expect(combinedSpamScore([{ engine: 'moat_spam', score: 8 }])).toBe(8);
    expect(combinedSpamScore([{ engine: 'rspamd', score: -1.5 }])).toBe(-1.5);
    expect(combinedSpamScore([])).toBe(0);
  });

  it("counts Moat's evidence in full beside an rspamd whose Bayes is not trained; rspamd's rules beyond the make-up", () => {
    const { beyond } = rulesBesideMoat;
    // A fresh rspamd: its local rules only, no BAYES_* symbol, no block list answered.
    const rspamd = {
      engine: 'rspamd',
      score: 1.2,
      rules: [rule('MIME_HTML_ONLY', 0.2), rule('ONCE_RECEIVED', 0.1), rule('PHISHING', 0.9)],
      knowledge: { bayes: 'untrained', lookups: 'unknown' } as const,
    };
    const [moat, r] = spamParts([moatPhishing, rspamd]);
    expect(moat).toMatchObject({ score: 6.5, counted: 6.5, weight: 1, notes: [] });
    // Its rules' 1.2 points are within the make-up Moat read already: they do not count.
    expect(r).toMatchObject({ counted: 0, weight: 0 });
    expect(r!.notes).toEqual([
      `rules 1.2: within their first ${beyond} points, the make-up Moat's rules read too; they do not count`,
    ]);
    expect(combinedSpamScore([moatPhishing, rspamd])).toBe(6.5);
    // Rules that say much more than the make-up: what is beyond it counts.
    const loud = { ...rspamd, score: 9, rules: [rule('PHISHING', 5), rule('R_SUSPICIOUS_URL', 4)] };
    const [, l] = spamParts([moatPhishing, loud]);
    expect(l!.counted).toBe(9 - beyond);
    expect(l!.notes).toEqual([
      `rules 9: what is beyond their first ${beyond} points counts (${9 - beyond}); the rest is the make-up Moat's rules read too`,
    ]);
    // Moat's score never counts less than alone beside an engine that knew less: a phishing score stays one.
    expect(combinedSpamScore([moatPhishing, loud])).toBeGreaterThanOrEqual(6.5);
    // Moat's evidence of ham counts in full, and so does the other engine's.
    expect(
      combinedSpamScore([
        { engine: 'moat_spam', score: -3, rules: [rule('BAYES_00', -3)] },
        { engine: 'rspamd', score: 5, rules: [rule('REPLYTO_EQ_TO_ADDR', 5)] },
      ]),
    ).toBe(-3 + 5 - beyond);
    expect(
      combinedSpamScore([
        { engine: 'moat_spam', score: 2, rules: [rule('HTML_ONLY', 2)] },
        { engine: 'spamassassin', score: -1, rules: [rule('DKIM_VALID_AU', -1)] },
      ]),
    ).toBe(1);
  });

  it("weighs another engine's rules beyond the make-up by whether its Bayes judged, when the weights say so", () => {
    const weights = { ...COMBINATION_WEIGHTS, rulesBesideMoat: { beyond: 1, judged: 0.5, notJudged: 0.25 } };
    const untrained = {
      engine: 'rspamd',
      score: 5,
      rules: [rule('PHISHING', 5)],
      knowledge: { bayes: 'untrained', lookups: 'unknown' } as const,
    };
    const [, r] = spamParts([moatPhishing, untrained], weights);
    expect(r!.counted).toBe(1);
    expect(r!.notes).toEqual([
      "rules 5: what is beyond their first 1 points counts × 0.25 (its Bayes is not trained) (1); the rest is the make-up Moat's rules read too",
    ]);
  });

  it("discounts the duplicated Bayes part when two engines' Bayes judged the same words, never Moat's rules", () => {
    const moat = {
      engine: 'moat_spam',
      score: 9,
      rules: [rule('BAYES_99', 6), rule('MISMATCHED_LINK_TEXT', 3)],
    };
    const rspamd = {
      engine: 'rspamd',
      score: 6.5,
      rules: [rule('BAYES_SPAM', 4.5), rule('MIME_HTML_ONLY', 2)],
      knowledge: { bayes: 'trained', lookups: 'unknown' } as const,
    };
    expect(bayesPart(moat.rules)).toBe(6);
    expect(bayesPart(rspamd.rules)).toBe(4.5);
    const [m, r] = spamParts([moat, rspamd]);
    // Each Bayes's spam evidence by bayesBesideAnother; Moat's rules in full, rspamd's beside them.
    expect(m!.counted).toBe(6 * bayesBesideAnother + 3);
    expect(m!.notes).toEqual([`Bayes 6 × ${bayesBesideAnother}: rspamd judged the same words`]);
    expect(r!.counted).toBe(r2(4.5 * bayesBesideAnother));
    expect(r!.notes).toEqual([
      `Bayes 4.5 × ${bayesBesideAnother}: Moat judged the same words`,
      `rules 2: within their first ${rulesBesideMoat.beyond} points, the make-up Moat's rules read too; they do not count`,
    ]);
    expect(combinedSpamScore([moat, rspamd])).toBe(r2(m!.counted + r!.counted));
    // Bayes evidence of ham by its own weight.
    const hamMoat = { engine: 'moat_spam', score: -3, rules: [rule('BAYES_00', -3)] };
    const hamRspamd = {
      engine: 'rspamd',
      score: -2,
      rules: [rule('BAYES_HAM', -3), rule('MIME_HTML_ONLY', 1)],
    };
    expect(spamParts([hamMoat, hamRspamd]).map((p) => p.counted)).toEqual([
      r2(-3 * hamBesideAnother),
      r2(-3 * hamBesideAnother),
    ]);
    // A Bayes that did not judge (too few words: 0 points) is not a duplicate: Moat's rules and rspamd's Bayes count.
    const fewWords = { ...moat, rules: [rule('BAYES_TOO_FEW_WORDS', 0), rule('MISMATCHED_LINK_TEXT', 3)] };
    expect(spamParts([fewWords, rspamd]).map((p) => p.counted)).toEqual([9, 4.5]);
    // Three Bayes: each one's spam evidence discounted once.
    const sa = {
      engine: 'spamassassin',
      score: 5,
      rules: [rule('BAYES_99', 3.5), rule('BAYES_999', 0.2), rule('HTML_MESSAGE', 1.3)],
    };
    const [, , s] = spamParts([moat, rspamd, sa]);
    expect(s!.counted).toBe(r2(3.7 * bayesBesideAnother));
    expect(s!.notes[0]).toBe(`Bayes 3.7 × ${bayesBesideAnother}: Moat and rspamd judged the same words`);
  });

  it('adds rspamd and SpamAssassin as they are when Moat did not score (the tenant turned it off)', () => {
    const rspamd = { engine: 'rspamd', score: 2.5, rules: [rule('MIME_HTML_ONLY', 2.5)] };
    const sa = { engine: 'spamassassin', score: 3, rules: [rule('HTML_MESSAGE', 3)] };
    expect(combinedSpamScore([rspamd, sa])).toBe(5.5);
  });

  it("does not count rspamd's 'does not resolve' symbols when its own DNS lookups failed", () => {
    const rspamd = {
      engine: 'rspamd',
      score: 5.3,
      rules: [
        rule('HFILTER_HOSTNAME_UNKNOWN', 2.5),
        rule('HFILTER_FROMHOST_NORES_A_OR_MX', 1.5),
        rule('RDNS_NONE', 1),
        rule('ONCE_RECEIVED', 0.3),
        rule('RDNS_DNSFAIL', 0),
      ],
    };
    const [part] = spamParts([rspamd]);
    expect(part!.counted).toBe(0.3);
    expect(part!.notes).toEqual([
      'its DNS failed: HFILTER_HOSTNAME_UNKNOWN, HFILTER_FROMHOST_NORES_A_OR_MX, RDNS_NONE (5) do not count',
    ]);
    // With its DNS answering, "does not resolve" is evidence about the sender: it counts.
    const answered = { ...rspamd, rules: rspamd.rules.filter((r) => r.name !== 'RDNS_DNSFAIL') };
    expect(combinedSpamScore([answered])).toBe(5.3);
  });

  it('gives the trace the weight each engine counted by', () => {
    const moat = { engine: 'moat_spam', score: 8, rules: [rule('BAYES_99', 6), rule('URL_IP', 2)] };
    const rspamd = { engine: 'rspamd', score: 4, rules: [rule('BAYES_SPAM', 4)] };
    expect(spamParts([moat, rspamd]).map((p) => p.weight)).toEqual([
      // Two decimals, as the trace shows it.
      Math.round(((6 * bayesBesideAnother + 2) / 8) * 100) / 100,
      bayesBesideAnother,
    ]);
    expect(spamParts([{ engine: 'rspamd', score: 0 }])[0]!.weight).toBe(1);
  });
});

describe('a forced verdict', () => {
  it("counts rspamd's pre-result (GTUBE: its score is the action's threshold, the symbol scores 0) in full beside Moat", () => {
    const parts = spamParts([
      { engine: 'moat_spam', score: 1, rules: [{ name: 'BAYES_50', score: 1, description: '' }] },
      {
        engine: 'rspamd',
        score: 15,
        rules: [{ name: 'GTUBE', score: 0, description: 'Gtube pattern' }],
        knowledge: { bayes: 'untrained', lookups: 'unknown' },
      },
    ]);
    expect(parts[1]!.counted).toBe(15);
    expect(parts[1]!.notes.join()).toContain('forced action');
  });
});
