import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder, textFilterParam } from './list.ts';
import { VERDICTS } from './quarantine.ts';

/** What became of the delivery of a message to a recipient (Mail Explorer's `delivery`). */
export const DELIVERY_STATUSES = ['queued', 'sent', 'deferred', 'failed', 'none'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The mail gateway's record of every processed message (issue 6 "Mail Explorer data"). */
export const MAIL_EXPLORER_API = {
  messages: '/api/v1/mail_explorer',
  /** The same list as CSV (its filters and sort; at most CSV_EXPORT_MAX_ROWS rows). */
  export: '/api/v1/mail_explorer/export',
} as const;

export const MAIL_VERDICTS = ['clean', ...VERDICTS] as const;
export const MAIL_ACTIONS = [
  'delivered',
  'delivered_banner',
  'attachments_removed',
  'quarantined',
  'quarantined_silent',
  /** Could not be processed after every attempt: held unscanned for an admin (issue 9). */
  'failed',
] as const;

/** The columns the Mail Explorer sorts by. */
export const MAIL_SORTS = ['received_at', 'sender', 'recipient', 'subject', 'verdict', 'size'] as const;
export type MailSort = (typeof MAIL_SORTS)[number];

export const mailExplorerQuerySchema = z
  .extend(listQuerySchema(MAIL_SORTS, 'received_at'), {
    verdict: z.optional(z.enum(MAIL_VERDICTS)),
    action: z.optional(z.enum(MAIL_ACTIONS)),
    /** The Message-ID header, with or without its angle brackets. */
    message_id: textFilterParam,
    /** What became of the delivery (the outbox): queued, sent, deferred (retrying), failed, none (held). */
    delivery: z.optional(z.enum(DELIVERY_STATUSES)),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type MailExplorerQuery = z.input<typeof mailExplorerQuerySchema>;

export const mailLogEntrySchema = z.object({
  id: z.string(),
  received_at: z.string(),
  sender: z.string(),
  sender_name: z.string(),
  recipient: z.string(),
  subject: z.string(),
  message_id: z.nullable(z.string()),
  verdict: z.enum(MAIL_VERDICTS),
  action: z.enum(MAIL_ACTIONS),
  reasons: z.array(z.string()),
  spf: z.string(),
  dkim: z.string(),
  dmarc: z.string(),
  size: z.int(),
  attachments: z.int(),
  /** The held copy, when there is one (its id in the quarantine lists). */
  quarantine_message_id: z.nullable(z.string()),
  /** The delivery's state in the outbox; none: nothing was sent (held, or not yet released). */
  delivery: z.enum(DELIVERY_STATUSES),
});
export type MailLogEntry = z.infer<typeof mailLogEntrySchema>;

export const mailExplorerListSchema = z
  .object({ items: z.array(mailLogEntrySchema), total: z.int() })
  .register(z.globalRegistry, { id: 'MailExplorerList' });
export type MailExplorerList = z.infer<typeof mailExplorerListSchema>;
