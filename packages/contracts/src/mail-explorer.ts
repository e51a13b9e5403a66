import { z } from 'zod';
import { VERDICTS } from './quarantine.ts';
import { noNul } from './validation.ts';

/** The mail gateway's record of every processed message (issue 6 "Mail Explorer data"). */
export const MAIL_EXPLORER_API = { messages: '/api/v1/mail_explorer' } as const;

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

export const mailExplorerQuerySchema = z
  .object({
    q: z.string().trim().max(200).refine(noNul, 'must not contain a NUL character').optional(),
    verdict: z.enum(MAIL_VERDICTS).optional(),
    action: z.enum(MAIL_ACTIONS).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
  })
  .describe('Query parameters (inline: OpenAPI parameters cannot be references)');
export type MailExplorerQuery = z.input<typeof mailExplorerQuerySchema>;

export const mailLogEntrySchema = z.object({
  id: z.string(),
  received_at: z.string(),
  sender: z.string(),
  sender_name: z.string(),
  recipient: z.string(),
  subject: z.string(),
  verdict: z.enum(MAIL_VERDICTS),
  action: z.enum(MAIL_ACTIONS),
  reasons: z.array(z.string()),
  spf: z.string(),
  dkim: z.string(),
  dmarc: z.string(),
  size: z.number().int(),
  attachments: z.number().int(),
  /** The held copy, when there is one (its id in the quarantine lists). */
  quarantine_message_id: z.string().nullable(),
});
export type MailLogEntry = z.infer<typeof mailLogEntrySchema>;

export const mailExplorerListSchema = z
  .object({ items: z.array(mailLogEntrySchema), total: z.number().int() })
  .meta({ id: 'MailExplorerList' });
export type MailExplorerList = z.infer<typeof mailExplorerListSchema>;
