import { z } from 'zod/mini';
import { dlpHitSchema } from './dlp.ts';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder, textFilterParam } from './list.ts';
import { MAIL_VERDICTS } from './mail-explorer.ts';
import { POLICY_ACTIONS } from './policy.ts';
import { heldMessageTracePath, messageTracePath } from './routes.ts';

/** The Events screen (issue 11, SPEC §2.4 "Events /security-events"): what the security side saw and did. */
export const SECURITY_EVENTS_API = {
  events: '/api/v1/security_events',
  /** The same list as CSV (its filters and sort; at most CSV_EXPORT_MAX_ROWS rows). */
  export: '/api/v1/security_events/export',
  event: '/api/v1/security_events/:id',
} as const;

/**
 * What happened: an engine's finding (detection), a message held (hold), delivered without its
 * attachments (strip), delivered with a warning banner (banner), released to its recipient
 * (release), reported by its recipient (report), held unscanned after every attempt failed
 * (failure), feedback on a verdict (feedback), held because the sender is on the block list (block).
 */
export const EVENT_TYPES = [
  'detection',
  'hold',
  'strip',
  'banner',
  'release',
  'report',
  'failure',
  'feedback',
  'block',
  /** A person's click on a rewritten link that was blocked, or let through past a warning (issue 36). */
  'click',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_SEVERITIES = ['info', 'low', 'medium', 'high'] as const;
export type EventSeverity = (typeof EVENT_SEVERITIES)[number];

/** An event's verdict: the message's (clean for one released after a report, say). */
export const EVENT_VERDICTS = MAIL_VERDICTS;
export type EventVerdict = (typeof EVENT_VERDICTS)[number];

/** The engines that write events (a free text column: an engine added later needs no migration). */
/**
 * Who can judge a message or act on it, as events and findings name them: Moat's own engines, the
 * outside ones a deployment connects, and the other deciders (the gateway, the policy, an admin,
 * the recipient, an import). An event found by several names them joined with commas.
 */
export const ENGINE_NAMES = [
  'anti_malware',
  'anti_phishing',
  'anti_spam',
  'moat_spam',
  'clamav',
  'rspamd',
  'spamassassin',
  'dnsbl',
  /** Click-time protection: a click on a rewritten link (issue 36). */
  'click_time',
  /** Data loss prevention on outbound mail (issue 38). */
  'dlp',
  'gateway',
  'policy',
  'admin',
  'recipient',
  'import',
] as const;
export type EngineName = (typeof ENGINE_NAMES)[number];

export const engineParam = z.optional(
  z
    .string()
    .check(
      z.trim(),
      z.maxLength(64),
      z.regex(/^[a-z0-9_,-]*$/, 'an engine name is lower-case letters, digits, _ and -'),
    ),
);

export const EVENT_SORTS = ['created_at', 'severity', 'type', 'verdict', 'recipient', 'sender'] as const;
export type EventSort = (typeof EVENT_SORTS)[number];

/**
 * `recipient` and `sender` match a part of the address, case-insensitively (`@acme.example` finds
 * a whole domain, a full address finds that one); `q` searches subject, addresses and description.
 */
export const securityEventsQuerySchema = z
  .extend(listQuerySchema(EVENT_SORTS, 'created_at'), {
    type: z.optional(z.enum(EVENT_TYPES)),
    verdict: z.optional(z.enum(EVENT_VERDICTS)),
    severity: z.optional(z.enum(EVENT_SEVERITIES)),
    engine: engineParam,
    recipient: textFilterParam,
    sender: textFilterParam,
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type SecurityEventsQuery = z.input<typeof securityEventsQuerySchema>;

export const securityEventParamsSchema = z.object({ id: z.uuid() });

/** One engine's finding: which engine, what it concluded, and why (the evidence). */
export const findingSchema = z.object({ engine: z.string(), verdict: z.string(), reason: z.string() });
export type Finding = z.infer<typeof findingSchema>;

/**
 * Which policy decided what: the verdict, the action taken, and where the action came from
 * (the tenant's gateway policy, the default policy, the sender block or allow list, an admin).
 */
export const POLICY_SOURCES = [
  'tenant_policy',
  /** A recipient's, group's or domain's override on the Policy screen. */
  'recipient_override',
  'default_policy',
  'block_list',
  'allow_list',
  'admin',
  'recipient',
  'gateway',
  'import',
] as const;
/**
 * What a decision of an event did: the policy's actions, an admin's release of the message or of
 * its original attachments, and a recipient's report.
 */
export const DECISION_ACTIONS = [
  ...POLICY_ACTIONS,
  'release_email',
  'release_original',
  'report_phishing',
  'report_safe',
] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

export const policyDecisionSchema = z.object({
  verdict: z.string(),
  action: z.string(),
  source: z.enum(POLICY_SOURCES),
});
export type PolicyDecision = z.infer<typeof policyDecisionSchema>;

/** The evidence an event keeps (all optional: older events have none). */
export const eventDetailsSchema = z.object({
  findings: z.optional(z.array(findingSchema)),
  decision: z.optional(policyDecisionSchema),
  /** A release: the message itself or its original attachments. */
  kind: z.optional(z.enum(['email', 'original'])),
  /** The gateway's inbound message: with the recipient, the key of its Mail Explorer row. */
  inbound_id: z.optional(z.string()),
  /** A click event: the link's URL and what Moat did (click-time protection). */
  url: z.optional(z.string()),
  outcome: z.optional(z.string()),
  /** Outbound mail (issue 38): its direction, the DLP hits (matched data masked), the held copy. */
  direction: z.optional(z.enum(['inbound', 'outbound'])),
  dlp: z.optional(z.array(dlpHitSchema)),
  outbound_held_id: z.optional(z.string()),
});
export type EventDetails = z.infer<typeof eventDetailsSchema>;

export const securityEventSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  type: z.enum(EVENT_TYPES),
  engine: z.string(),
  verdict: z.string(),
  severity: z.string(),
  description: z.string(),
  recipient: z.string(),
  sender: z.string(),
  subject: z.string(),
  /** The held message (Quarantined Items), when there is one still. */
  quarantine_message_id: z.nullable(z.string()),
});
export type SecurityEvent = z.infer<typeof securityEventSchema>;

export const securityEventListSchema = z
  .object({ items: z.array(securityEventSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'SecurityEventList' });
export type SecurityEventList = z.infer<typeof securityEventListSchema>;

/** One step of the message's story: an event, a restore request, a release. */
export const historyEntrySchema = z.object({
  at: z.string(),
  kind: z.enum(['event', 'restore_request', 'release']),
  /** The event's id (kind event), to open it. */
  event_id: z.nullable(z.string()),
  /** event: its type; restore_request: its status; release: email or original. */
  status: z.string(),
  description: z.string(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const securityEventDetailSchema = z
  .object({
    event: securityEventSchema,
    findings: z.array(findingSchema),
    decision: z.nullable(policyDecisionSchema),
    /** What happened to the message since, oldest first (this event included). */
    history: z.array(historyEntrySchema),
    /** The Mail Explorer row of this recipient's copy, when the gateway logged one. */
    mail_log_id: z.nullable(z.string()),
  })
  .register(z.globalRegistry, { id: 'SecurityEventDetail' });
export type SecurityEventDetail = z.infer<typeof securityEventDetailSchema>;

/**
 * The message's trace page: by its Mail Explorer row when the gateway logged one, otherwise by
 * its held copy; null when the event has neither.
 */
export function eventTracePath(mailLogId: string | null, quarantineMessageId: string | null): string | null {
  if (mailLogId) return messageTracePath(mailLogId);
  if (quarantineMessageId) return heldMessageTracePath(quarantineMessageId);
  return null;
}
