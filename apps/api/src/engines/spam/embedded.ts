import type { Engine, EngineInput, Finding, ScoredRule } from '../types.ts';
import { verdictOfScore } from '../types.ts';
import { type Classification, classify, type TokenTable } from './bayes.ts';
import { messageFacts } from './message-facts.ts';
import { shippedModel } from './model.ts';
import { knownSender, makeUpNotJudged, ruleHits } from './rules.ts';
import { MAKE_UP_TOKEN, tokenKey, tokensOf } from './tokens.ts';

/**
 * Moat's own anti-spam engine, on with nothing else configured: the Bayesian classifier (the
 * shipped model plus what the tenant taught it) and the structural rules, added into one score on
 * the spam scale that the tenant's thresholds turn into a verdict.
 */
export const EMBEDDED_ENGINE = 'moat_spam';

/** The classifier's probability in bands, each a rule with its points (set on the training part). */
const BAYES_BANDS: Array<{ from: number; name: string; score: number }> = [
  { from: 0.99, name: 'BAYES_99', score: 6 },
  { from: 0.9, name: 'BAYES_90', score: 4.5 },
  { from: 0.7, name: 'BAYES_70', score: 4 },
  { from: 0.5, name: 'BAYES_50', score: 3 },
  { from: 0.3, name: 'BAYES_30', score: 0 },
  { from: 0.1, name: 'BAYES_10', score: -1 },
  { from: 0.01, name: 'BAYES_01', score: -2 },
  { from: 0, name: 'BAYES_00', score: -3 },
];

/** The most words a learned message keeps (`mail_log.details`): enough to learn it again later. */
export const MAX_LEARNED_TOKENS = 600;

export interface SpamAnalysis {
  tokens: string[];
  keys: number[];
  /** The keys the classifier judges: all of them, or the words only (makeUpNotJudged). */
  judged: number[];
  rules: ScoredRule[];
}

/** Tokens and structural rules of a message: what is scored, and what is learned. */
export function analyse(
  input: Pick<EngineInput, 'parsed' | 'links' | 'raw'> & {
    auth: EngineInput['auth'] | null;
    tenant?: Pick<EngineInput['tenant'], 'domains' | 'partners'>;
  },
) {
  const facts = messageFacts(input.raw);
  const message = {
    facts,
    subject: input.parsed.subject,
    text: input.parsed.text,
    html: input.parsed.html,
    links: input.links,
  };
  const tokens = tokensOf(message);
  const keys = tokens.map(tokenKey);
  const known = knownSender(input.parsed.fromAddress, input.auth, input.tenant);
  // All tokens are learned; an accountable sender's make-up is not judged.
  const judged = makeUpNotJudged(input, facts, known)
    ? keys.filter((_, i) => !MAKE_UP_TOKEN.test(tokens[i]!))
    : keys;
  return {
    tokens,
    keys,
    judged,
    rules: ruleHits({ ...message, auth: input.auth, knownSender: known }),
  } satisfies SpamAnalysis;
}

/** Fewer clues than this are too few to call a message spam on (a two-line note): no points for spam. */
const MIN_SPAM_CLUES = 5;

/** A token in an admin's words: `subject:money` is "money" in the subject, `url:ip` a link to an IP address. */
export function clueWords(token: string): string {
  const [kind, ...rest] = token.split(':');
  const value = rest.join(':');
  switch (kind) {
    case 'subject':
      return `"${value}" in the subject`;
    case 'url':
      if (value === 'ip') return 'a link to an IP address';
      if (value === 'port') return 'a link with a port number';
      if (value === 'query') return 'a link with a query string';
      return `"${value.replace(/^path:/, '')}" in a link`;
    case 'proto':
      return `an ${value} link`;
    case 'html':
      return `HTML <${value.replace(':', ' ')}>`;
    case 'style':
      return `HTML style ${value.replace(':', ': ')}`;
    case 'from':
      return value.startsWith('name:')
        ? `"${value.slice(5)}" in the sender's name`
        : value === 'noname'
          ? 'a sender without a name'
          : `the sender's domain ${value.replace(/^domain:/, '')}`;
    case 'mailer':
      return `the mail program ${value}`;
    case 'header':
      return `a ${value} header`;
    case 'content-type':
      return `a ${value} part`;
    case 'reply-to':
      return value === 'other' ? 'a reply-to address elsewhere' : 'a reply-to address';
    case 'to':
      return `${value.replace(/^count:/, '')} recipients named`;
    default:
      return `"${token.replace(/^cjk:/, '')}"`;
  }
}

export function bayesRule(classification: Classification, tokens: string[], keys: number[]): ScoredRule {
  const band = BAYES_BANDS.find((b) => classification.probability >= b.from) ?? BAYES_BANDS.at(-1)!;
  if (band.score > 0 && classification.clues.length < MIN_SPAM_CLUES) {
    return {
      name: 'BAYES_TOO_FEW_WORDS',
      score: 0,
      description: `The Bayesian classifier knows too few of its words to judge it (${classification.clues.length})`,
    };
  }
  const words = new Map(keys.map((k, i) => [k, tokens[i] ?? '']));
  const leaning = classification.probability >= 0.5 ? (p: number) => p > 0.5 : (p: number) => p < 0.5;
  const clues = classification.clues
    .filter((c) => leaning(c.probability))
    .slice(0, 5)
    .map((c) => clueWords(words.get(c.key) ?? ''));
  const percent = (classification.probability * 100).toFixed(classification.probability > 0.99 ? 1 : 0);
  return {
    name: band.name,
    score: band.score,
    description:
      classification.clues.length === 0
        ? 'The Bayesian classifier knows none of its words'
        : `The Bayesian classifier rates it ${percent} % spam-like${clues.length ? `; strongest clues: ${clues.join(', ')}` : ''}`,
  };
}

export interface EmbeddedSpamOptions {
  /** The tenant's own learning for these token keys; null when it has learned nothing. */
  learned?: (tenantId: string, keys: number[]) => Promise<TokenTable | null>;
  model?: TokenTable;
}

export function createEmbeddedSpam(options: EmbeddedSpamOptions = {}): Engine {
  // The shipped model is read on first use (the first scan, or the engine's version on the service
  // status page), not when the server starts.
  const startingModel = () => options.model ?? shippedModel();
  return {
    name: EMBEDDED_ENGINE,
    tool: 'anti_spam',
    get version() {
      const model = startingModel();
      return `Bayes + rules (${model.nspam + model.nham} messages in the starting model)`;
    },
    status: 'on',
    // A failure of Moat's own code is a failure to scan: the message is marked suspicious.
    failClosed: true,
    async scan(input): Promise<Finding[]> {
      const { tokens, keys, judged, rules } = analyse(input);
      const tenantId = input.tenant.id;
      const own = tenantId && options.learned ? await options.learned(tenantId, keys) : null;
      const model = startingModel();
      const classification = classify(judged, own ? [model, own] : [model]);
      const bayes = bayesRule(classification, tokens, keys);
      if (judged.length < keys.length)
        bayes.description +=
          ' (its words only: the sender proved its domain, so how its HTML is made is not judged)';
      const all = [bayes, ...rules].sort((a, b) => Math.abs(b.score) - Math.abs(a.score));
      const score = Math.round(all.reduce((sum, r) => sum + r.score, 0) * 100) / 100;
      const verdict = verdictOfScore(score, input.spamThresholds);
      return [
        {
          engine: EMBEDDED_ENGINE,
          verdict,
          score,
          rules: all.filter((r) => r.score !== 0 || r.name.startsWith('BAYES')),
          reason: `Moat anti-spam: score ${score} (spam at ${input.spamThresholds.spam})`,
          tokens: keys.slice(0, MAX_LEARNED_TOKENS),
        },
      ];
    },
  };
}
