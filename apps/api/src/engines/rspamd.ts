import {
  type AuthSummary,
  type Engine,
  type EngineInput,
  type EngineKnowledge,
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
  /**
   * How many messages of each class rspamd's Bayes must have learned before it judges (its
   * classifier's `min_learns`; Debian's statistic.conf has 200). Below it, its Bayes is untrained.
   */
  bayesMinLearns?: number;
}

/** rspamd's Bayes, as its controller's `/stat` counts it. */
export type BayesState = EngineKnowledge['bayes'];
/** How long one `/stat` answer stands for rspamd's Bayes: learning changes it slowly. */
const BAYES_STATE_TTL_MS = 60_000;
const DEBIAN_MIN_LEARNS = 200;

export interface RspamdCheck {
  /** rspamd's total (the spam scale of SpamThresholds). */
  score: number;
  /** What rspamd itself would do ('no action', 'add header', 'reject' …): for the trace only. */
  action: string;
  /** The symbols that scored, largest effect first. */
  rules: ScoredRule[];
  /** When a pre-result decided the action (GTUBE, a forced action): rspamd's words for it. */
  forcedBy?: string;
  /** What rspamd knew: whether its Bayes judged or could, whether its DNS lookups answered. */
  knowledge: EngineKnowledge;
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
  const minLearns = options.bayesMinLearns ?? DEBIAN_MIN_LEARNS;
  const controllerHeaders: Record<string, string> = options.password ? { Password: options.password } : {};

  /**
   * Whether rspamd's Bayes has learned enough to judge, from its controller's `/stat` (the learns
   * of its BAYES_SPAM and BAYES_HAM statfiles). Asked at most once a minute, in the background: a
   * scan reads the last answer and never waits for the controller ('unknown' until it answered,
   * or when it cannot be reached). A scan where its Bayes judged says more than /stat: trained.
   */
  let bayes: { state: BayesState; at: number; asking?: Promise<BayesState> | undefined } = {
    state: 'unknown',
    at: Number.NEGATIVE_INFINITY,
  };
  async function askBayesState(): Promise<BayesState> {
    try {
      const res = await fetch(new URL('/stat', controller), {
        headers: controllerHeaders,
        signal: AbortSignal.timeout(Math.min(timeoutMs, 5_000)),
      });
      if (!res.ok) return 'unknown';
      return bayesStateOfStat((await res.json()) as StatReply, minLearns);
    } catch {
      return 'unknown';
    }
  }
  function refreshBayesState(): Promise<BayesState> {
    bayes.asking ??= askBayesState().then((state) => {
      bayes = { state, at: Date.now() };
      return state;
    });
    return bayes.asking;
  }
  // When a scan last saw rspamd's Bayes judge (BAYES_SPAM, BAYES_HAM): then it is trained, whatever
  // /stat says (with Redis, rspamd counts the learns for /stat about once a minute).
  let judgedAt = Number.NEGATIVE_INFINITY;
  function bayesState(judged: boolean): BayesState {
    const now = Date.now();
    if (judged) judgedAt = now;
    if (now - judgedAt < BAYES_STATE_TTL_MS) return 'trained';
    if (now - bayes.at > BAYES_STATE_TTL_MS) void refreshBayesState();
    return bayes.state;
  }

  return {
    /** Ask the controller for its Bayes now (the benchmark, before it scans); scans never wait for it. */
    refreshBayesState,

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
      const symbols = body.symbols ?? {};
      return {
        score: round(body.score),
        action: body.action ?? 'no action',
        rules: rulesOf(symbols, forced),
        ...(forced && body.messages?.smtp_message ? { forcedBy: body.messages.smtp_message } : {}),
        knowledge: knowledgeOf(symbols, bayesState('BAYES_SPAM' in symbols || 'BAYES_HAM' in symbols)),
      };
    },

    async learn(raw: Buffer, label: 'spam' | 'ham'): Promise<LearnResult> {
      const res = await fetch(new URL(label === 'spam' ? '/learnspam' : '/learnham', controller), {
        method: 'POST',
        body: new Uint8Array(raw),
        headers: controllerHeaders,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await res.text();
      // What it has learned changed: ask /stat again at the next scan.
      if (bayes.state !== 'trained') bayes = { ...bayes, at: Number.NEGATIVE_INFINITY };
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
  /** Ask rspamd's controller how trained its Bayes is now (scans use the last answer). */
  refreshBayesState(): Promise<BayesState>;
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
      const { score, action, rules, forcedBy, knowledge } = await rspamd.check(input);
      const finding: Finding = {
        engine: ENGINE,
        verdict: verdictOfScore(score, input.spamThresholds),
        score,
        rules,
        knowledge,
        reason: `rspamd: score ${score} (${action}${forcedBy ? `: ${forcedBy}` : ''})`,
      };
      return [finding];
    },
    learn: rspamd.learn,
    refreshBayesState: rspamd.refreshBayesState,
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
  symbols?: Record<string, RspamdSymbol>;
}

interface RspamdSymbol {
  name?: string;
  score?: number;
  description?: string;
  options?: string[];
}

/** The controller's `/stat`: one statfile per Bayes class, `revision` its learns. */
interface StatReply {
  statfiles?: Array<{ symbol?: string; revision?: number }>;
}

/** 'trained' once both classes have `minLearns` learns (rspamd's Bayes judges from then on). */
export function bayesStateOfStat(stat: StatReply, minLearns: number): BayesState {
  if (!Array.isArray(stat.statfiles)) return 'unknown';
  const learns = (symbol: string) =>
    stat.statfiles!.filter((f) => f.symbol === symbol).reduce((sum, f) => sum + (f.revision ?? 0), 0);
  return learns('BAYES_SPAM') >= minLearns && learns('BAYES_HAM') >= minLearns ? 'trained' : 'untrained';
}

/**
 * Symbols that only say a name did not resolve (the sender's domain, the HELO, the client's
 * reverse DNS). When rspamd's own lookups failed they describe its resolver, not the message.
 */
export const UNRESOLVED_ONLY_SYMBOLS: ReadonlySet<string> = new Set([
  'RDNS_NONE',
  'HFILTER_HOSTNAME_UNKNOWN',
  'HFILTER_FROMHOST_NORES_A_OR_MX',
  'HFILTER_FROMHOST_NORESOLVE_MX',
  'HFILTER_HELO_NORES_A_OR_MX',
  'HFILTER_HELO_NORESOLVE_MX',
  'HFILTER_HELO_IP_A',
]);

/**
 * A lookup of rspamd's own failed (a timeout, a server failure: not "not found"): once_received's
 * RDNS_DNSFAIL, or a block list's `<SYMBOL>_FAIL`, whose option is "<what>:<DNS error>". Both
 * score 0 and are kept among the rules (rulesOf), so the stored trace still tells.
 */
const isDnsFailure = (name: string, symbol: RspamdSymbol) =>
  name === 'RDNS_DNSFAIL' || (/_FAIL$/.test(name) && (symbol.options ?? []).some((o) => o.includes(':')));

/** The kept rules say rspamd's DNS failed (the markers rulesOf keeps at 0). */
export const dnsFailed = (rules: readonly ScoredRule[]) =>
  rules.some((r) => r.score === 0 && (r.name === 'RDNS_DNSFAIL' || /_FAIL$/.test(r.name)));

/**
 * Symbols only an answer of a network lookup gives: a DNS block or allow list listed something
 * (RBL_*, DNSWL, URIBL, DBL, SURBL …), the ASN zone answered, the sender domain's MX was checked.
 */
const ANSWERED =
  /^(?:RBL_|RECEIVED_SPAMHAUS|RCVD_IN_DNSWL|DWL_DNSWL|RWL_|URIBL_|DBL_|SURBL|\w+_SURBL|SEM_|MAILSPIKE|ASN$|MX_GOOD|MX_INVALID|MX_MISSING|MX_NULL|MX_WHITE)/;

/**
 * What rspamd knew about the message: its Bayes judged (BAYES_SPAM / BAYES_HAM) or, when it did
 * not, what the controller's learn counts say; its lookups answered, failed, or neither.
 */
export function knowledgeOf(symbols: Record<string, RspamdSymbol>, bayes: BayesState): EngineKnowledge {
  const names = Object.keys(symbols);
  const failed = Object.entries(symbols).some(([name, s]) => isDnsFailure(name, s));
  const answered = names.some((n) => ANSWERED.test(n) && !/_(?:FAIL|BLOCKED\w*)$/.test(n));
  return {
    bayes: names.includes('BAYES_SPAM') || names.includes('BAYES_HAM') ? 'trained' : bayes,
    lookups: failed ? 'unreachable' : answered ? 'reached' : 'unknown',
  };
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
 * pre-result decided (`forced`), the symbols of 0 stay: one of them is what decided. So do the
 * markers of a failed DNS lookup: they explain how rspamd's score counts (spam/combine.ts).
 */
function rulesOf(symbols: NonNullable<CheckReply['symbols']>, forced: boolean): ScoredRule[] {
  return Object.entries(symbols)
    .map(([name, s]) => ({
      name: s.name ?? name,
      score: round(s.score ?? 0),
      description: s.description ?? '',
      keep: forced || isDnsFailure(name, s),
    }))
    .filter((rule) => rule.keep || rule.score !== 0)
    .map(({ keep: _, ...rule }) => rule)
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
