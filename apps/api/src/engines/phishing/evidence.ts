import type { ScoredRule } from '../types.ts';

/**
 * One piece of phishing evidence: a rule in CAPS, its points on the phishing scale and what it saw
 * in an admin's words. A message's points are added up: from PHISHING_POINTS it is phishing, from
 * SUSPICIOUS_POINTS suspicious. Single facts that are phishing on their own (a lookalike of the
 * tenant's domain, a blocklisted link) carry PHISHING_POINTS by themselves.
 */
export type Evidence = ScoredRule;

export const PHISHING_POINTS = 6;
export const SUSPICIOUS_POINTS = 3;

/** Evidence kept once per rule name (the strongest), so ten lookalike links count as one. */
export function strongestPerRule(evidence: Evidence[]): Evidence[] {
  const best = new Map<string, Evidence>();
  for (const e of evidence) {
    const seen = best.get(e.name);
    if (!seen || e.score > seen.score) best.set(e.name, e);
  }
  return [...best.values()].sort((a, b) => b.score - a.score);
}
