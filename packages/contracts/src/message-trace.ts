import { z } from 'zod/mini';
import { DELIVERY_STATUSES, MAIL_ACTIONS, MAIL_VERDICTS } from './mail-explorer.ts';

/** One message's story, from the SMTP session to its delivery or release (issue 11 "Message trace"). */
export const MESSAGE_TRACE_API = {
  /** By Mail Explorer row (one message and recipient). */
  byMailLog: '/api/v1/mail_explorer/:id/trace',
  /** By held message (its Mail Explorer row when there is one, else the held copy alone). */
  byHeld: '/api/v1/quarantine/messages/:id/trace',
} as const;

export const traceParamsSchema = z.object({ id: z.uuid() });

export const TRACE_KINDS = [
  'received',
  'authentication',
  'engine',
  'decision',
  'delivery',
  'hold',
  'request',
  'release',
  'event',
] as const;
export type TraceKind = (typeof TRACE_KINDS)[number];

/** good: passed, delivered; bad: failed, held; warn: in between (deferred, soft fail); info: neither. */
export const TRACE_OUTCOMES = ['good', 'warn', 'bad', 'info'] as const;

export const traceEntrySchema = z.object({
  /** When it happened (null: not recorded, e.g. an authentication check within processing). */
  at: z.nullable(z.string()),
  kind: z.enum(TRACE_KINDS),
  title: z.string(),
  detail: z.string(),
  outcome: z.enum(TRACE_OUTCOMES),
});
export type TraceEntry = z.infer<typeof traceEntrySchema>;

export const authCheckSchema = z.object({ result: z.string(), reason: z.string() });

export const scoredRuleSchema = z.object({ name: z.string(), score: z.number(), description: z.string() });
export type ScoredRule = z.infer<typeof scoredRuleSchema>;

export const spamExplanationSchema = z.object({
  /** The scoring engines' scores added, each by its weight. */
  score: z.number(),
  thresholds: z.object({ suspicious: z.number(), spam: z.number() }),
  engines: z.array(
    z.object({
      /** moat_spam, rspamd, spamassassin. */
      engine: z.string(),
      score: z.number(),
      /** What of its score counts in the message's (counted / score; engines/spam/combine.ts says why). */
      weight: z.number(),
      rules: z.array(scoredRuleSchema),
    }),
  ),
  /** How an admin taught it (spam or ham), if anyone did. */
  learned: z.nullable(z.enum(['spam', 'ham'])),
  /** Whether it can be taught: its words were kept. */
  learnable: z.boolean(),
});
export type SpamExplanation = z.infer<typeof spamExplanationSchema>;

/** Why anti-phishing judged the message as it did: each piece of evidence with its points (issue 35). */
export const phishingExplanationSchema = z.object({
  points: z.number(),
  thresholds: z.object({ suspicious: z.number(), phishing: z.number() }),
  rules: z.array(scoredRuleSchema),
});
export type PhishingExplanation = z.infer<typeof phishingExplanationSchema>;

export const messageTraceSchema = z
  .object({
    message: z.object({
      /** The Mail Explorer row, when there is one. */
      mail_log_id: z.nullable(z.string()),
      /** The gateway's inbound message (its clicks are looked up by it), when there is a Mail Explorer row. */
      inbound_id: z.optional(z.string()),
      /** The held copy, when there is one. */
      quarantine_message_id: z.nullable(z.string()),
      received_at: z.string(),
      sender: z.string(),
      sender_name: z.string(),
      recipient: z.string(),
      subject: z.string(),
      message_id: z.nullable(z.string()),
      verdict: z.enum(MAIL_VERDICTS),
      action: z.nullable(z.enum(MAIL_ACTIONS)),
      size: z.int(),
      delivery: z.enum(DELIVERY_STATUSES),
    }),
    /** The verdict in plain words, built by the server from the verdict, findings and decision. */
    explanation: z.string(),
    auth: z.nullable(z.object({ spf: authCheckSchema, dkim: authCheckSchema, dmarc: authCheckSchema })),
    /** Why the message's spam score is what it is; null: no scoring engine scanned it. */
    spam: z.nullable(spamExplanationSchema),
    /** Anti-phishing's evidence; absent: it found none (or the row is older than issue 35). */
    phishing: z.optional(phishingExplanationSchema),
    timeline: z.array(traceEntrySchema),
  })
  .register(z.globalRegistry, { id: 'MessageTrace' });
export type MessageTrace = z.infer<typeof messageTraceSchema>;

/** TLS of the SMTP session a message came in on (null: plain text). */
export interface SessionTls {
  protocol: string;
  cipher: string;
}

/**
 * What the gateway keeps with each Mail Explorer row for the trace (`mail_log.details`), beyond
 * the row's columns. Rows written before it was kept hold `{}`.
 */
export interface StoredMessageDetails {
  received?: {
    client_ip: string;
    helo: string;
    tls: SessionTls | null;
    mail_from: string;
    rcpt_to: string[];
  };
  auth?: { spf: AuthCheck; dkim: AuthCheck; dmarc: AuthCheck };
  /** `points`, `rule`: anti-phishing's points for that piece of evidence and the rule that saw it. */
  findings?: Array<{ engine: string; verdict: string; reason: string; points?: number; rule?: string }>;
  decision?: { verdict: string; action: string; source: string };
  /** Each scoring engine's spam score with the rules that made it up (issue 13). */
  scores?: StoredEngineScore[];
  /** The spam thresholds the scores were judged by. */
  spam_thresholds?: { suspicious: number; spam: number };
  /** The message's token keys (base64 of little-endian int32s): it can be learned later. */
  spam_tokens?: string;
}

export interface StoredEngineScore {
  engine: string;
  score: number;
  verdict: string;
  rules: Array<{ name: string; score: number; description: string }>;
}
export type AuthCheck = z.infer<typeof authCheckSchema>;
