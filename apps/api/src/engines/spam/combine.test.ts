import { describe, expect, it } from 'vitest';
import type { ScoredRule } from '../types.ts';
import { BAYES_BESIDE_ANOTHER, bayesPart, combinedSpamScore, spamParts } from './combine.ts';

const rule = (name: string, score: number): ScoredRule => ({ name, score, description: '' });

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

  it("counts Moat's evidence in full beside an rspamd whose Bayes is not trained and that has no lookups", () => {
    // A fresh rspamd: its local rules only, no BAYES_* symbol, no block list answered.
    const rspamd = {
      engine: 'rspamd',
      score: 1.2,
      rules: [rule('MIME_HTML_ONLY', 0.2), rule('ONCE_RECEIVED', 0.1), rule('PHISHING', 0.9)],
      knowledge: { bayes: 'untrained', lookups: 'unknown' } as const,
    };
    expect(combinedSpamScore([moatPhishing, rspamd])).toBe(6.5 + 1.2);
    const [moat, r] = spamParts([moatPhishing, rspamd]);
    expect(moat).toMatchObject({ counted: 6.5, weight: 1, notes: [] });
    expect(r).toMatchObject({ counted: 1.2, weight: 1 });
    expect(r!.notes).toEqual(['its Bayes is not trained: its score counts without Bayes']);
    // Its evidence of ham counts in full as well: rspamd's 5 alone would be suspicious.
    expect(
      combinedSpamScore([
        { engine: 'moat_spam', score: -3, rules: [rule('BAYES_00', -3)] },
        { engine: 'rspamd', score: 5 },
      ]),
    ).toBe(2);
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
    // The strongest Bayes (Moat's 6) counts in full; rspamd's 4.5 by BAYES_BESIDE_ANOTHER; all rules in full.
    expect(m).toMatchObject({ counted: 9, weight: 1, notes: [] });
    expect(r!.counted).toBe(6.5 - (1 - BAYES_BESIDE_ANOTHER) * 4.5);
    expect(r!.notes).toEqual([
      `its Bayes 4.5 counts × ${BAYES_BESIDE_ANOTHER}: Moat's Bayes judged the same words`,
    ]);
    expect(combinedSpamScore([moat, rspamd])).toBe(9 + r!.counted);
    // Three Bayes: the strongest in full, the two others discounted.
    const sa = {
      engine: 'spamassassin',
      score: 5,
      rules: [rule('BAYES_99', 3.5), rule('BAYES_999', 0.2), rule('HTML_MESSAGE', 1.3)],
    };
    const parts = spamParts([moat, rspamd, sa]);
    expect(parts.map((p) => p.counted)).toEqual([9, r!.counted, 5 - (1 - BAYES_BESIDE_ANOTHER) * 3.7]);
    // A Bayes that did not judge (too few words: 0 points) is not a duplicate: rspamd's counts in full.
    const fewWords = { ...moat, rules: [rule('BAYES_TOO_FEW_WORDS', 0), rule('MISMATCHED_LINK_TEXT', 3)] };
    expect(spamParts([fewWords, rspamd]).map((p) => p.counted)).toEqual([9, 6.5]);
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
    expect(part!.notes[0]).toMatch(
      /^rspamd could not reach DNS: HFILTER_HOSTNAME_UNKNOWN, HFILTER_FROMHOST_NORES_A_OR_MX, RDNS_NONE \(5\) do not count$/,
    );
    // With its DNS answering, "does not resolve" is evidence about the sender: it counts.
    const answered = { ...rspamd, rules: rspamd.rules.filter((r) => r.name !== 'RDNS_DNSFAIL') };
    expect(combinedSpamScore([answered])).toBe(5.3);
  });

  it('gives the trace the weight each engine counted by', () => {
    const moat = { engine: 'moat_spam', score: 8, rules: [rule('BAYES_99', 6), rule('URL_IP', 2)] };
    const rspamd = { engine: 'rspamd', score: 4, rules: [rule('BAYES_SPAM', 4)] };
    expect(spamParts([moat, rspamd]).map((p) => p.weight)).toEqual([1, BAYES_BESIDE_ANOTHER]);
    expect(spamParts([{ engine: 'rspamd', score: 0 }])[0]!.weight).toBe(1);
  });
});
