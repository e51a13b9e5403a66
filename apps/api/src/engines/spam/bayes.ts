/**
 * The Bayesian text classifier: Gary Robinson's per-token probabilities combined with Fisher's
 * chi-squared method, as SpamBayes does it. Each token's spam probability is smoothed toward 0.5
 * by how rarely it was seen; the strongest clues (at most MAX_CLUES, each at least
 * MIN_STRENGTH from 0.5) are combined into a spam score S and a ham score H, and the message's
 * probability is (S - H + 1) / 2: near 1 spam, near 0 ham, near 0.5 unsure (clues both ways, or
 * none).
 */

/** Robinson's s (strength of the prior) and x (the prior for a token never seen). */
const S = 0.45;
const X = 0.5;
const MIN_STRENGTH = 0.1;
const MAX_CLUES = 150;
/** The largest count a token keeps per class (counts are packed into one number). */
export const MAX_COUNT = 0xffff;

/** Token counts of one body of training: the shipped model, or one tenant's own learning. */
export interface TokenTable {
  /** Messages learned as spam and as ham. */
  nspam: number;
  nham: number;
  /** Spam and ham messages each token was seen in. */
  counts(key: number): readonly [spam: number, ham: number] | undefined;
}

/** A TokenTable held in memory: counts packed as spam * 65536 + ham. */
export class MemoryTable implements TokenTable {
  nspam = 0;
  nham = 0;
  readonly packed = new Map<number, number>();

  counts(key: number): readonly [number, number] | undefined {
    const v = this.packed.get(key);
    return v === undefined ? undefined : [Math.floor(v / 65536), v % 65536];
  }

  /** Add (or with -1 take back) one message's distinct tokens as spam or ham. */
  learn(keys: Iterable<number>, label: 'spam' | 'ham', sign: 1 | -1 = 1): void {
    if (label === 'spam') this.nspam = Math.max(0, this.nspam + sign);
    else this.nham = Math.max(0, this.nham + sign);
    for (const key of keys) {
      const [s, h] = this.counts(key) ?? [0, 0];
      const ns = Math.min(MAX_COUNT, Math.max(0, s + (label === 'spam' ? sign : 0)));
      const nh = Math.min(MAX_COUNT, Math.max(0, h + (label === 'ham' ? sign : 0)));
      if (ns === 0 && nh === 0) this.packed.delete(key);
      else this.packed.set(key, ns * 65536 + nh);
    }
  }
}

export interface Clue {
  key: number;
  probability: number;
}

export interface Classification {
  /** 0 (ham) … 1 (spam); 0.5 when nothing is known. */
  probability: number;
  /** The clues that decided it, strongest first. */
  clues: Clue[];
}

/** Inverse chi-squared: P(chi2 >= x2) with v (even) degrees of freedom. */
function chi2Q(x2: number, v: number): number {
  const m = x2 / 2;
  let sum = Math.exp(-m);
  let term = sum;
  for (let i = 1; i < v / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** The message's spam probability from its distinct token keys, over one or more tables summed. */
export function classify(keys: Iterable<number>, tables: TokenTable[]): Classification {
  const nspam = tables.reduce((n, t) => n + t.nspam, 0);
  const nham = tables.reduce((n, t) => n + t.nham, 0);
  if (nspam === 0 || nham === 0) return { probability: 0.5, clues: [] };
  const clues: Clue[] = [];
  for (const key of keys) {
    let spam = 0;
    let ham = 0;
    for (const table of tables) {
      const c = table.counts(key);
      if (c) {
        spam += c[0];
        ham += c[1];
      }
    }
    const n = spam + ham;
    if (n === 0) continue;
    const spamRatio = spam / nspam;
    const hamRatio = ham / nham;
    const p = spamRatio / (spamRatio + hamRatio);
    const f = (S * X + n * p) / (S + n);
    if (Math.abs(f - 0.5) >= MIN_STRENGTH) clues.push({ key, probability: f });
  }
  clues.sort((a, b) => Math.abs(b.probability - 0.5) - Math.abs(a.probability - 0.5));
  const used = clues.slice(0, MAX_CLUES);
  if (used.length === 0) return { probability: 0.5, clues: [] };
  // Sums of logs, not products: 150 probabilities near 0 underflow a double.
  let lnSpam = 0;
  let lnHam = 0;
  for (const { probability } of used) {
    lnSpam += Math.log(1 - probability);
    lnHam += Math.log(probability);
  }
  const spamness = 1 - chi2Q(-2 * lnSpam, 2 * used.length);
  const hamness = 1 - chi2Q(-2 * lnHam, 2 * used.length);
  return { probability: (spamness - hamness + 1) / 2, clues: used };
}
