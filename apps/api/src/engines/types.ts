import type { SecurityTool } from '@moat/contracts/deployment';
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
  tenant: { domains: string[]; people: Array<{ name: string; email: string }> };
}

export interface Finding {
  engine: string;
  verdict: Verdict;
  reason: string;
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
