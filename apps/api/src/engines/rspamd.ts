import {
  type AuthSummary,
  type Engine,
  type EngineInput,
  type Finding,
  type ScoredRule,
  verdictOfScore,
} from './types.ts';

const ENGINE = 'rspamd';
/** rspamd's controller worker listens here when its normal worker has 11333 (Debian's defaults). */
export const RSPAMD_CONTROLLER_PORT = '11334';

export interface RspamdOptions {
  /** The normal worker (`/checkv2`), e.g. http://127.0.0.1:11333. */
  url: string;
  /** The controller worker (`/learnspam`, `/learnham`); default: `url`'s host on port 11334. */
  controllerUrl?: string | undefined;
  /** The controller's password (its `Password` header); none when it trusts Moat's address. */
  password?: string | undefined;
  timeoutMs?: number;
  /** Symbols' scores for this client's scans (the benchmark zeroes what only offline DNS causes). */
  scores?: Record<string, number>;
}

export interface RspamdCheck {
  /** rspamd's total (the spam scale of SpamThresholds). */
  score: number;
  /** What rspamd itself would do ('no action', 'add header', 'reject' …): for the trace only. */
  action: string;
  /** The symbols that scored, largest effect first. */
  rules: ScoredRule[];
  /** When a pre-result decided the action (GTUBE, a forced action): rspamd's words for it. */
  forcedBy?: string;
}

/**
 * What learning did. 'already': nothing new: rspamd had learned this message, or skipped it (its
 * Bayes already classifies it so, or it has too few words for Bayes).
 */
export type LearnResult = 'learned' | 'already';

/** The controller's default address: the normal worker's host on port 11334. */
export function rspamdControllerUrl(url: string): string {
  const controller = new URL(url);
  controller.port = RSPAMD_CONTROLLER_PORT;
  return controller.origin;
}

/**
 * rspamd's HTTP protocol (https://rspamd.com/doc/developers/protocol.html): `POST /checkv2` with the
 * message as the body and what the SMTP session told Moat as request headers, and the controller's
 * `POST /learnspam` / `/learnham` for its Bayes classifier.
 */
export function createRspamd(options: RspamdOptions) {
  const checkUrl = new URL('/checkv2', options.url);
  const controller = options.controllerUrl ?? rspamdControllerUrl(options.url);
  const timeoutMs = options.timeoutMs ?? 10_000;

  return {
    async check(input: EngineInput): Promise<RspamdCheck> {
      const res = await fetch(checkUrl, {
        method: 'POST',
        body: new Uint8Array(input.raw),
        headers: requestHeaders(input, options.scores),
        signal: AbortSignal.timeout(timeoutMs),
      });
      const body = (await res.json().catch(() => ({}))) as CheckReply;
      if (!res.ok) throw new Error(`rspamd answered ${res.status}${body.error ? `: ${body.error}` : ''}`);
      if (typeof body.score !== 'number') throw new Error('rspamd answered without a score');
      const forced = body.is_skipped === true;
      return {
        score: round(body.score),
        action: body.action ?? 'no action',
        rules: rulesOf(body.symbols ?? {}, forced),
        ...(forced && body.messages?.smtp_message ? { forcedBy: body.messages.smtp_message } : {}),
      };
    },

    async learn(raw: Buffer, label: 'spam' | 'ham'): Promise<LearnResult> {
      const res = await fetch(new URL(label === 'spam' ? '/learnspam' : '/learnham', controller), {
        method: 'POST',
        body: new Uint8Array(raw),
        headers: options.password ? { Password: options.password } : {},
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      if (res.status === 200) return 'learned';
      // 208 "<id> has been already learned as spam, ignore it": it is in the learn cache. 204 (no
      // words): rspamd skipped it, its Bayes already putting the message in that class, or the
      // message too short for Bayes (rspamd tells which only in its log). Nothing new either way.
      if (res.status === 208 || res.status === 204) return 'already';
      throw new Error(`rspamd's controller answered ${res.status}: ${errorOf(text)}`);
    },
  };
}

export interface RspamdEngine extends Engine {
  learn(raw: Buffer, label: 'spam' | 'ham'): Promise<LearnResult>;
}

/**
 * Anti-spam through rspamd: every scanned message gets one finding with rspamd's score and the
 * symbols that made it, 'clean' ones included (they explain why a message was not held). The
 * verdict comes from the tenant's thresholds, not rspamd's own actions. An unreachable rspamd
 * throws and holds nothing (failClosed: false): the processor logs it.
 */
export function createRspamdEngine(options: RspamdOptions): RspamdEngine {
  const rspamd = createRspamd(options);
  return {
    name: ENGINE,
    tool: 'anti_spam',
    version: 'rspamd',
    status: 'on',
    failClosed: false,
    async scan(input) {
      const { score, action, rules, forcedBy } = await rspamd.check(input);
      const finding: Finding = {
        engine: ENGINE,
        verdict: verdictOfScore(score, input.spamThresholds),
        score,
        rules,
        reason: `rspamd: score ${score} (${action}${forcedBy ? `: ${forcedBy}` : ''})`,
      };
      return [finding];
    },
    learn: rspamd.learn,
  };
}

interface CheckReply {
  score?: number;
  action?: string;
  /**
   * A pre-result stopped the scan (GTUBE, a forced action): `score` is the action's threshold and
   * the symbol that forced it scores 0 (GTUBE's `"Gtube pattern"` is in `messages.smtp_message`).
   */
  is_skipped?: boolean;
  messages?: { smtp_message?: string };
  error?: string;
  symbols?: Record<string, { name?: string; score?: number; description?: string }>;
}

/**
 * A value as an HTTP header carries it: its UTF-8 bytes (an SMTPUTF8 address, a HELO of any
 * bytes) one per character, without the control characters no header may hold. Whatever the
 * sender wrote, the request is sent (fetch refuses characters above U+00FF).
 */
export function byteString(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  return Buffer.from(value.replace(/[\u0000-\u001f\u007f]/g, ''), 'utf8').toString('latin1');
}

/**
 * The SMTP facts as rspamd's request headers, and a `Settings` header (rspamd's settings module
 * reads it as JSON) that hands over Moat's SPF, DKIM and DMARC results: rspamd's own checks are
 * switched off (they would ask DNS again, and could disagree with what Moat's policy and the
 * delivered Authentication-Results say) and their result symbols inserted instead, so rspamd's
 * scores and composites (VIOLATED_DIRECT_SPF, AUTH_NA …) still count them.
 */
function requestHeaders(input: EngineInput, scores: Record<string, number> = {}): Headers {
  const { envelope } = input;
  const headers = new Headers();
  if (envelope.clientIp) headers.set('IP', byteString(envelope.clientIp));
  if (envelope.helo) headers.set('Helo', byteString(envelope.helo));
  // The null sender of a bounce is `<>`.
  headers.set('From', byteString(envelope.mailFrom) || '<>');
  // One header per recipient; fetch joins repeated headers with ", ", which rspamd splits again.
  for (const rcpt of envelope.rcptTo) headers.append('Rcpt', byteString(rcpt));
  // The client's verified reverse-DNS name, when the envelope carries one.
  const hostname =
    'clientHostname' in envelope && typeof envelope.clientHostname === 'string'
      ? envelope.clientHostname
      : '';
  if (hostname) headers.set('Hostname', byteString(hostname));
  headers.set(
    'Settings',
    JSON.stringify({
      symbols_disabled: ['SPF_CHECK', 'DKIM_CHECK', 'DMARC_CHECK'],
      symbols: Object.fromEntries(authSymbols(input.auth).map((symbol) => [symbol, 1])),
      // Without a Hostname header hfilter takes the client for one without reverse DNS (2.5
      // points on every message). rspamd looks the PTR up itself (once_received: RDNS_NONE).
      scores: { ...(hostname ? {} : { HFILTER_HOSTNAME_UNKNOWN: 0 }), ...scores },
    }),
  );
  return headers;
}

const SPF_SYMBOLS: Record<string, string> = {
  pass: 'R_SPF_ALLOW',
  fail: 'R_SPF_FAIL',
  softfail: 'R_SPF_SOFTFAIL',
  neutral: 'R_SPF_NEUTRAL',
  none: 'R_SPF_NA',
  temperror: 'R_SPF_DNSFAIL',
  permerror: 'R_SPF_PERMFAIL',
};
const DKIM_SYMBOLS: Record<string, string> = {
  pass: 'R_DKIM_ALLOW',
  fail: 'R_DKIM_REJECT',
  none: 'R_DKIM_NA',
  temperror: 'R_DKIM_TEMPFAIL',
  permerror: 'R_DKIM_PERMFAIL',
};
const DMARC_SYMBOLS: Record<string, string> = {
  pass: 'DMARC_POLICY_ALLOW',
  none: 'DMARC_NA',
  temperror: 'DMARC_DNSFAIL',
  permerror: 'DMARC_BAD_POLICY',
};
/** A DMARC failure scores by the domain's policy, as rspamd's dmarc module does. */
const DMARC_FAIL_SYMBOLS: Record<string, string> = {
  reject: 'DMARC_POLICY_REJECT',
  quarantine: 'DMARC_POLICY_QUARANTINE',
  none: 'DMARC_POLICY_SOFTFAIL',
};

/** rspamd's symbols for Moat's results (the names of its spf, dkim and dmarc modules). */
export function authSymbols(auth: AuthSummary): string[] {
  const symbols = [SPF_SYMBOLS[auth.spf], DKIM_SYMBOLS[auth.dkim], DMARC_SYMBOLS[auth.dmarc]];
  if (auth.dmarc === 'fail') {
    // mailauth's clause: "dmarc=fail (p=REJECT sp=REJECT dis=REJECT) header.from=…".
    const clause = auth.checks?.dmarc.reason ?? auth.authenticationResults;
    const policy = /\bdmarc=fail\b[^;]*?\bp=(\w+)/i.exec(clause)?.[1]?.toLowerCase() ?? 'none';
    symbols.push(DMARC_FAIL_SYMBOLS[policy] ?? DMARC_FAIL_SYMBOLS.none);
  }
  return symbols.filter((s): s is string => s !== undefined);
}

/**
 * The symbols that scored, largest effect first (then by name, for a stable order). When a
 * pre-result decided (`forced`), the symbols of 0 stay: one of them is what decided.
 */
function rulesOf(symbols: NonNullable<CheckReply['symbols']>, forced: boolean): ScoredRule[] {
  return Object.entries(symbols)
    .map(([name, s]) => ({
      name: s.name ?? name,
      score: round(s.score ?? 0),
      description: s.description ?? '',
    }))
    .filter((rule) => forced || rule.score !== 0)
    .sort((a, b) => Math.abs(b.score) - Math.abs(a.score) || a.name.localeCompare(b.name));
}

/** rspamd's sums are floats (7.299999): two decimals, as its web interface shows them. */
const round = (n: number) => Math.round(n * 100) / 100 + 0;

function errorOf(text: string): string {
  try {
    return (JSON.parse(text) as { error?: string }).error ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}
