import type { SecurityTool } from '@moat/contracts/deployment';
import { DEFAULT_SPAM_THRESHOLDS as POLICY_SPAM_THRESHOLDS } from '@moat/contracts/policy';
import type { Verdict } from '@moat/contracts/quarantine';
import type { ParsedMessage } from '../mail/parse.ts';

/** SPF, DKIM and DMARC results of a message (mailauth), as short words: pass, fail, none … */
export interface AuthSummary {
  spf: string;
  dkim: string;
  dmarc: string;
  /** The header lines to add on delivery. */
  authenticationResults: string;
  /** Each result with mailauth's words for it (for the message trace); absent: not kept. */
  checks?: Record<'spf' | 'dkim' | 'dmarc', { result: string; reason: string }>;
}

/** A link of the message: where it goes and the words it shows. */
export interface MessageLink {
  href: string;
  text: string;
}

/** What every engine reads. */
export interface EngineInput {
  parsed: ParsedMessage;
  links: MessageLink[];
  auth: AuthSummary;
  raw: Buffer;
  envelope: { mailFrom: string; clientIp: string; helo: string; rcptTo: string[] };
  /** The recipient's tenant: its domains and its users' names, for impersonation checks. */
  tenant: {
    id?: string;
    domains: string[];
    people: Array<{ name: string; email: string }>;
    /**
     * The people an attacker would pose as (VIPs, set in the console): a display name naming one
     * from any address but theirs is impersonation. `emails` are the addresses they really write from.
     */
    vips?: Array<{ name: string; emails: string[] }>;
    /** Domains the tenant regularly exchanges mail with (learned from its mail flow). */
    partners?: string[];
  };
  /**
   * The tenant's spam score thresholds (its policy): a score at or above `spam` is spam, at or
   * above `suspicious` suspicious. One scale for every anti-spam engine (rspamd's and
   * SpamAssassin's points, the embedded engine's points).
   */
  spamThresholds: SpamThresholds;
  /** What the tenant's mail flow knows of this message's sender (earlier messages from this From address / From domain); absent: unknown. */
  senderHistory?: { address: number; domain: number };
}

export interface SpamThresholds {
  suspicious: number;
  spam: number;
}

/** The default thresholds: rspamd's greylist and add-header bands, SpamAssassin's scale. */
export const DEFAULT_SPAM_THRESHOLDS: SpamThresholds = POLICY_SPAM_THRESHOLDS;

/** One rule or symbol that scored, for the message trace ("why held", "why not"). */
export interface ScoredRule {
  /** The rule's or symbol's name (`BAYES_SPAM`, `R_SPF_FAIL`, `MISMATCHED_LINK_TEXT` …). */
  name: string;
  score: number;
  /** In plain words; '' when the engine gives none. */
  description: string;
}

export interface Finding {
  engine: string;
  /**
   * 'clean': the engine scored the message below every threshold; kept only to explain the
   * verdict (it holds nothing and is not counted as a finding).
   */
  verdict: Verdict | 'clean';
  reason: string;
  /** A scoring engine's total on the spam scale (see SpamThresholds). */
  score?: number;
  /** What made up the score. */
  rules?: ScoredRule[];
  /** The message's token keys (the embedded engine): kept so the message can be learned later. */
  tokens?: number[];
  /** A remote scoring engine (rspamd, SpamAssassin): what it knew about the message. */
  knowledge?: EngineKnowledge;
  /** Anti-phishing: this piece of evidence's points on the phishing scale (6: phishing, 3: suspicious). */
  points?: number;
  /** Anti-phishing: the rule that saw it (BRAND_DISPLAY_NAME, LINK_SHORTENER …). */
  rule?: string;
}

/**
 * What a remote scoring engine knew when it scored a message, so its score can count for that
 * (engines/spam/combine.ts) and the trace can say it.
 */
export interface EngineKnowledge {
  /** trained: its Bayes judges messages; untrained: it has not learned enough to; unknown: it did not say. */
  bayes: 'trained' | 'untrained' | 'unknown';
  /**
   * Its network lookups (DNS block lists, reverse DNS): reached (one answered), unreachable (a
   * lookup failed: no answer, not "not listed"), unknown (none answered or failed, e.g. not configured).
   */
  lookups: 'reached' | 'unreachable' | 'unknown';
}

/** Verdict from a score on the spam scale. */
export function verdictOfScore(score: number, thresholds: SpamThresholds): Verdict | 'clean' {
  if (score >= thresholds.spam) return 'spam';
  if (score >= thresholds.suspicious) return 'suspicious';
  return 'clean';
}

/** A detection engine: message in, findings out. Listed with its state in the console. */
export interface Engine {
  name: string;
  /** The tenant's switch for it (Security Engines); a tenant that turned it off is not scanned by it. */
  tool?: SecurityTool;
  version: string;
  /** 'off' with `detail` saying why (not configured). */
  status: 'on' | 'off';
  detail?: string;
  /**
   * When the scan itself fails: true (local engines) marks the message suspicious rather than
   * letting it through unscanned; false (a remote service such as rspamd) only logs it.
   */
  failClosed: boolean;
  scan(input: EngineInput): Promise<Finding[]>;
}

/** Most severe first: the message's verdict is its most severe finding. */
export const SEVERITY: Verdict[] = ['malware', 'phishing', 'spam', 'suspicious'];

export function verdictOf(findings: Finding[]): Verdict | 'clean' {
  for (const verdict of SEVERITY) if (findings.some((f) => f.verdict === verdict)) return verdict;
  return 'clean';
}
