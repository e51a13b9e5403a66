import { z } from 'zod/mini';
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

export const myMessageSchema = z
  .extend(
    z.pick(messageSummarySchema, {
      id: true,
      sender: true,
      sender_name: true,
      subject: true,
      received_at: true,
      verdict: true,
      reasons: true,
      state: true,
      attachments: true,
    }),
    { restore: ownRestoreSchema },
  )
  .register(z.globalRegistry, { id: 'MyQuarantineMessage' });
export type MyMessage = z.infer<typeof myMessageSchema>;

export const myMessageListSchema = z
  .object({ items: z.array(myMessageSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'MyQuarantineList' });

export const myMessageDetailSchema = z
  .extend(myMessageSchema, z.pick(messageDetailSchema, { headers: true, body_text: true, links: true }).shape)
  .register(z.globalRegistry, { id: 'MyQuarantineMessageDetail' });
export type MyMessageDetail = z.infer<typeof myMessageDetailSchema>;

export const myQuarantineQuerySchema = z.object({
  q: searchParam,
  limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(100)), 25),
  offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
});

export const myRestoreBodySchema = z
  .strictObject({ commentary: z._default(z.string().check(z.maxLength(2_000)), '') })
  .register(z.globalRegistry, { id: 'MyRestoreRequest' });

export const myRestoreResponseSchema = z.object({ status: z.enum(RESTORE_STATUSES), message: z.string() });
