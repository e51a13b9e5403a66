import type { Report } from './detector.ts';
import { maskToken } from './mask.ts';

interface TokenPattern {
  /** Each expression starts with a fixed prefix, and its runs are bounded or cannot restart inside a run. */
  expression: RegExp;
  /** The group holding the secret, when the match holds more (`aws_secret_access_key = …`). */
  group?: number;
  /** A further check of the secret, for shapes ordinary text can take. */
  check?: (token: string) => boolean;
  /** A check of what precedes the match in the text (it starts at `start`). */
  context?: (text: string, start: number) => boolean;
}

/** Words that say a credential follows: a JWT counts only within this many characters after one. */
const CREDENTIAL_WORD = /(?:bearer|authorization|token|jwt)/i;
const CREDENTIAL_REACH = 20;

/**
 * A JSON Web Token counts as a credential only where the text hands it over as one: after
 * `Bearer`, `Authorization`, `token` or `jwt` (a few characters before it), and not as part of a
 * URL (right after `=`, `/`, `?` or `#`): sign-in links, password resets and unsubscribe links
 * carry one-time tokens in their query, and mail holding them is ordinary.
 */
function jwtHandedOver(text: string, start: number): boolean {
  const before = text[start - 1];
  if (before === '=' || before === '/' || before === '?' || before === '#') return false;
  const lead = text.slice(Math.max(0, start - CREDENTIAL_REACH), start);
  if (/https?:\/\/\S*$/i.test(lead)) return false;
  return CREDENTIAL_WORD.test(lead);
}

/** A random token mixes digits, upper- and lower-case letters: a slug or a word does not. */
const looksRandom = (token: string) => /\d/.test(token) && /[A-Z]/.test(token) && /[a-z]/.test(token);

/** A JSON Web Token's header: base64url JSON naming its signing algorithm. */
function jwtHeader(token: string): boolean {
  try {
    const header: unknown = JSON.parse(
      Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString(),
    );
    return typeof header === 'object' && header !== null && 'alg' in header;
  } catch {
    return false;
  }
}

/** Credentials of common cloud and developer services, by the shape each service gives its tokens. */
const TOKENS: TokenPattern[] = [
  // AWS access key ids, and secret keys where they are named.
  { expression: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  {
    expression:
      /\b(?:aws_secret_access_key|aws_secret_key|secret_access_key|SecretAccessKey)["']?\s{0,5}[:=]\s{0,5}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    group: 1,
  },
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained tokens.
  { expression: /\bgh[pousr]_[A-Za-z0-9]{36}\b/g },
  { expression: /\bgithub_pat_[A-Za-z0-9_]{82}\b/g },
  { expression: /\bglpat-[A-Za-z0-9_-]{20}(?![A-Za-z0-9_-])/g },
  {
    expression: /(?<![A-Za-z0-9-])xox[abposr]-[A-Za-z0-9-]{10,250}(?![A-Za-z0-9-])/g,
    check: (t) => /\d/.test(t),
  },
  { expression: /\b[sr]k_live_[A-Za-z0-9]{24,247}\b/g },
  { expression: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g },
  // OpenAI (and the like: `sk-proj-…`, `sk-ant-…`): a long random run after `sk-`.
  { expression: /(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{40,300}(?![A-Za-z0-9_-])/g, check: looksRandom },
  { expression: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  // Twilio API key secrets' ids.
  { expression: /\bSK[0-9a-f]{32}\b/g, check: (t) => /[a-f]/.test(t.slice(2)) && /\d/.test(t.slice(2)) },
  // JSON Web Tokens: a run cannot start inside another, so a long run is read once.
  {
    expression:
      /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4000}\.eyJ[A-Za-z0-9_-]{8,8000}\.[A-Za-z0-9_-]{16,2000}(?![A-Za-z0-9_-])/g,
    check: jwtHeader,
    context: jwtHandedOver,
  },
];

/** A piece every token shape above holds: texts without any (most mail) are not scanned further. */
const TOKEN_HINT =
  /AKIA|ASIA|secret|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|k_live_|AIza|sk-|SG\.|SK[0-9a-f]|eyJ/i;

/** API keys and tokens. */
export function findApiKeys(text: string, report: Report): void {
  if (!TOKEN_HINT.test(text)) return;
  for (const { expression, group, check, context } of TOKENS) {
    for (const match of text.matchAll(expression)) {
      const token = match[group ?? 0]!;
      if (check && !check(token)) continue;
      if (context && !context(text, match.index)) continue;
      report(token, maskToken(token));
    }
  }
}

const PEM_PRIVATE_KEY = /-----BEGIN (?:(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP) )?PRIVATE KEY(?: BLOCK)?-----/g;
const PUTTY_KEY = /PuTTY-User-Key-File-\d: [A-Za-z0-9@._-]{1,40}/g;

/**
 * Private keys (PEM, OpenSSH, PGP, PuTTY). Two keys are told apart by what follows their first
 * line; the sample is that first line alone, never key material.
 */
export function findPrivateKeys(text: string, report: Report): void {
  for (const expression of [PEM_PRIVATE_KEY, PUTTY_KEY]) {
    for (const match of text.matchAll(expression)) {
      const end = match.index + match[0].length;
      report(`${match[0]}${text.slice(end, end + 120).replace(/\s+/g, '')}`, match[0]);
    }
  }
}
