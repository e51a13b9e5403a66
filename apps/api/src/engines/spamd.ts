import net from 'node:net';
import { type Engine, type EngineKnowledge, type Finding, type ScoredRule, verdictOfScore } from './types.ts';

/**
 * spamc's default `--max-size` (500 KB): spamc does not send a larger message to spamd, it passes it
 * through unchecked ("skipped message, greater than max message size"). So do we, and say so.
 */
export const SPAMD_MAX_MESSAGE_BYTES = 500 * 1024;
/** spamd's REPORT answer is the report only (not the message): a few KB. More is not spamd. */
const MAX_RESPONSE_BYTES = 256 * 1024;
const DEFAULT_PORT = 783;
const ENGINE = 'spamassassin';

export interface SpamdEngine extends Engine {
  /** Teach SpamAssassin's Bayes (TELL; spamd must run with `--allow-tell`). 'already': it knew. */
  learn(raw: Buffer, label: 'spam' | 'ham'): Promise<'learned' | 'already'>;
  /** Resolves when spamd answers PONG. */
  ping(): Promise<void>;
}

/**
 * SpamAssassin through spamd (SPAMD_URL, `spamd://host:port` or `tcp://host:port`), speaking the
 * SPAMC/SPAMD protocol itself. Every scanned message gets one finding with SpamAssassin's score and
 * rules, 'clean' ones included (they explain a verdict). The verdict comes from the tenant's
 * thresholds, not spamd's `required_score`. An unreachable spamd throws and holds nothing
 * (failClosed: false), as rspamd.
 */
export function createSpamd(options: {
  url?: string | undefined;
  timeoutMs?: number;
  user?: string;
}): SpamdEngine {
  const base = {
    name: ENGINE,
    tool: 'anti_spam',
    version: 'SpamAssassin (spamd)',
    failClosed: false,
  } as const;
  if (!options.url) {
    const off = () => Promise.reject(new Error('SPAMD_URL is not set'));
    return {
      ...base,
      status: 'off',
      detail: 'SPAMD_URL is not set',
      scan: async () => [],
      learn: off,
      ping: off,
    };
  }
  const target = tcpTarget(options.url, DEFAULT_PORT);
  const timeoutMs = options.timeoutMs ?? 20_000;
  const user = options.user ?? 'moat';
  const call = async (command: string, headers: Record<string, string | number>, body?: Buffer) => {
    const head = [
      `${command} SPAMC/1.5`,
      ...Object.entries({ ...headers, ...(body ? { 'Content-length': body.length } : {}) }).map(
        ([k, v]) => `${k}: ${v}`,
      ),
    ];
    const request = Buffer.concat([
      Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'),
      body ?? Buffer.alloc(0),
    ]);
    return parseResponse(await exchange(target, request, timeoutMs));
  };

  return {
    ...base,
    status: 'on',
    async scan({ raw, spamThresholds }) {
      if (raw.length > SPAMD_MAX_MESSAGE_BYTES) {
        const kb = Math.ceil(raw.length / 1024);
        return [
          {
            engine: ENGINE,
            verdict: 'clean',
            reason: `SpamAssassin: not scanned, ${kb} KB is over spamd's ${SPAMD_MAX_MESSAGE_BYTES / 1024} KB limit (skipped, as spamc does)`,
          },
        ];
      }
      const res = await call('REPORT', { User: user }, raw);
      const spam = /^(?:true|false|yes|no)\s*;\s*(-?\d+(?:\.\d+)?)\s*\/\s*(-?\d+(?:\.\d+)?)$/i.exec(
        res.headers.get('spam') ?? '',
      );
      if (!spam) throw new Error(`spamd answered without a score (${res.status})`);
      const score = Number(spam[1]) + 0; // -0.0 is 0
      const rules = parseReportRules(res.body);
      const finding: Finding = {
        engine: ENGINE,
        verdict: verdictOfScore(score, spamThresholds),
        score,
        rules,
        knowledge: spamAssassinKnowledge(rules),
        reason: `SpamAssassin: score ${score.toFixed(1)}`,
      };
      return [finding];
    },
    async learn(raw, label) {
      if (raw.length > SPAMD_MAX_MESSAGE_BYTES) {
        throw new Error(`spamd: not learned, the message is over ${SPAMD_MAX_MESSAGE_BYTES / 1024} KB`);
      }
      const res = await call('TELL', { 'Message-class': label, Set: 'local', User: user }, raw);
      return /\blocal\b/i.test(res.headers.get('didset') ?? '') ? 'learned' : 'already';
    },
    async ping() {
      const res = await call('PING', {});
      if (!/\bPONG\b/.test(res.status)) throw new Error(`spamd answered "${res.status}" to PING`);
    },
  };
}

interface SpamdResponse {
  status: string;
  /** Lower-cased names. */
  headers: Map<string, string>;
  body: string;
}

/** `SPAMD/1.1 0 EX_OK`, headers, a blank line, the body; a non-zero code is spamd's error. */
function parseResponse(answer: Buffer): SpamdResponse {
  const text = answer.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  const [status = '', ...lines] = (headEnd < 0 ? text.trimEnd() : text.slice(0, headEnd)).split('\r\n');
  const code = /^SPAMD\/\d+(?:\.\d+)? (\d+) ?(.*)$/.exec(status);
  if (!code) throw new Error(`spamd answered something else: "${status.slice(0, 100)}"`);
  if (code[1] !== '0') throw new Error(`spamd answered ${code[1]} ${code[2]}`.trim());
  const headers = new Map<string, string>();
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { status, headers, body: headEnd < 0 ? '' : text.slice(headEnd + 4) };
}

/**
 * The rules of SpamAssassin's report (its `report` template's `_SUMMARY_`): after "Content analysis
 * details" and the dashed line, one ` pts rule name  description` line per rule, long descriptions
 * wrapped onto lines indented by 28, the rule's log in brackets. The content preview (the
 * sender's words) comes before and the log is bracketed, so neither can pose as a rule (a rule line
 * has at most 3 spaces before its score). A site that rewrote the template gets the score alone.
 */
export function parseReportRules(report: string): ScoredRule[] {
  const details = report.lastIndexOf('\nContent analysis details:');
  if (details < 0) return [];
  const lines = report.slice(details + 1).split(/\r?\n/);
  const dashes = lines.findIndex((line) => /^-{4} -+ -+\s*$/.test(line));
  if (dashes < 0) return [];
  const rules: ScoredRule[] = [];
  for (const line of lines.slice(dashes + 1)) {
    // The score is right-aligned in 4 columns; wrapped description lines are indented further.
    const rule = /^ {0,3}(-?\d+(?:\.\d+)?) +([A-Za-z0-9_]+)\s*(.*)$/.exec(line);
    if (rule) {
      // -0.0 (an informational rule's -0.001) is 0.
      rules.push({ name: rule[2]!, score: Number(rule[1]) + 0, description: rule[3]!.trim() });
    } else if (/^\s*\[/.test(line) && rules.length > 0) {
      // The rule's log ("[URIs: …]", words of the message): not its description.
    } else if (/^\s+\S/.test(line) && rules.length > 0) {
      const last = rules[rules.length - 1]!;
      last.description = `${last.description} ${line.trim()}`;
    } else {
      break;
    }
  }
  return rules;
}

/**
 * SpamAssassin's network tests: DNS block and allow lists, URI block lists, SPF and DKIM (their
 * records are in DNS), the Razor, Pyzor and DCC checksums. None runs under `spamd -L`.
 */
const NETWORK_TEST =
  /^(?:RCVD_IN_|URIBL_|DKIM_VALID|DKIM_INVALID|SPF_|T_SPF_|RAZOR2_|PYZOR_|DCC_|NO_DNS_FOR_FROM|DNS_FROM_)/;

/**
 * What SpamAssassin knew about the message, from its report. Bayes: once it has learned enough
 * (200 spam and 200 ham by default) it rates every message with words, one BAYES_00 … BAYES_999
 * test; none means it has not (or the message has too few words for it). Lookups: one of its
 * network tests hit (so they ran), or 'unknown': local tests only (-L), or nothing listed.
 */
export function spamAssassinKnowledge(rules: readonly ScoredRule[]): EngineKnowledge {
  return {
    bayes: rules.some((r) => /^BAYES_\d+$/.test(r.name)) ? 'trained' : 'untrained',
    lookups: rules.some((r) => NETWORK_TEST.test(r.name)) ? 'reached' : 'unknown',
  };
}

type Target = { host: string; port: number };

function tcpTarget(url: string, defaultPort: number): Target {
  const parsed = new URL(url);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: Number(parsed.port) || defaultPort,
  };
}

/** Send the request, half-close, read until spamd closes: bounded in time and size. */
function exchange(target: Target, request: Buffer, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const socket = net.connect(target, () => socket.end(request));
    const timer = setTimeout(
      () => socket.destroy(new Error(`spamd did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES)
        socket.destroy(new Error(`spamd's answer is over ${MAX_RESPONSE_BYTES} bytes`));
      else chunks.push(chunk);
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`spamd at ${target.host}:${target.port}: ${error.message}`, { cause: error }));
    });
    socket.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
  });
}
