import { z } from 'zod';
import { searchParam } from './list.ts';
import { RESTORE_MODES, RESTORE_STATUSES } from './quarantine.ts';
import { messageDetailSchema, messageSummarySchema } from './quarantine-admin.ts';

/**
 * Every user's own quarantine (issue 12, SPEC §6): the signed-in user's held messages — those
 * addressed to their own address — with a preview and a restore as the policy allows.
 */
export const MY_QUARANTINE_API = {
  messages: '/api/v1/my_quarantine',
  message: '/api/v1/my_quarantine/:id',
  /** POST: restore (automatic mode) or ask for it (request modes), with words for the admin. */
  restore: '/api/v1/my_quarantine/:id/restore',
} as const;

/** What the policy lets the user do with one of their held messages, and where it stands. */
export const ownRestoreSchema = z.object({
  mode: z.enum(RESTORE_MODES),
  status: z.enum(RESTORE_STATUSES),
});

export const myMessageSchema = messageSummarySchema
  .pick({
    id: true,
    sender: true,
    sender_name: true,
    subject: true,
    received_at: true,
    verdict: true,
    reasons: true,
    state: true,
    attachments: true,
  })
  .extend({ restore: ownRestoreSchema })
  .meta({ id: 'MyQuarantineMessage' });
export type MyMessage = z.infer<typeof myMessageSchema>;

export const myMessageListSchema = z
  .object({ items: z.array(myMessageSchema), total: z.number().int() })
  .meta({ id: 'MyQuarantineList' });

export const myMessageDetailSchema = myMessageSchema
  .extend(messageDetailSchema.pick({ headers: true, body_text: true, links: true }).shape)
  .meta({ id: 'MyQuarantineMessageDetail' });
export type MyMessageDetail = z.infer<typeof myMessageDetailSchema>;

export const myQuarantineQuerySchema = z.object({
  q: searchParam,
  limit: z.coerce.number().int().min(1).max(100).default(25),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const myRestoreBodySchema = z
  .object({ commentary: z.string().max(2_000).default('') })
  .strict()
  .meta({ id: 'MyRestoreRequest' });

export const myRestoreResponseSchema = z.object({ status: z.enum(RESTORE_STATUSES), message: z.string() });
