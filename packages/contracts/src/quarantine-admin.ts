import { z } from 'zod';
import { RESTORE_MODES, RESTORE_STATUSES, VERDICTS } from './quarantine.ts';
import { noNul } from './validation.ts';

/** Admin paths of the quarantine (DESIGN §4: /api/v1/<resource>). */
export const QUARANTINE_ADMIN_API = {
  restoreRequests: '/api/v1/restore_requests',
  restoreRequestAction: (id: string, action: 'approve' | 'decline') =>
    `/api/v1/restore_requests/${id}/${action}`,
  restoreRequestsBulk: '/api/v1/restore_requests/bulk',
  messages: '/api/v1/quarantine/messages',
  message: (id: string) => `/api/v1/quarantine/messages/${id}`,
  messageRelease: (id: string) => `/api/v1/quarantine/messages/${id}/release`,
  messageRetry: (id: string) => `/api/v1/quarantine/messages/${id}/retry`,
} as const;

export const attachmentSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    state: z.enum(['delivered', 'removed', 'cleaned']),
  })
  .meta({ id: 'QuarantineAttachment' });

export const messageSummarySchema = z
  .object({
    id: z.string(),
    saas_type: z.string(),
    recipient: z.string(),
    sender: z.string(),
    sender_name: z.string(),
    subject: z.string(),
    received_at: z.string(),
    verdict: z.enum(VERDICTS),
    reasons: z.array(z.string()),
    state: z.enum(['quarantined', 'attachments_removed', 'restored', 'deleted']),
    /** The gateway could not process it: held unscanned; an admin may retry, release or delete it. */
    processing_failed: z.boolean(),
    size: z.number().int(),
    attachments: z.array(attachmentSchema),
  })
  .meta({ id: 'QuarantineMessageSummary' });
export type MessageSummary = z.infer<typeof messageSummarySchema>;

export const messageDetailSchema = messageSummarySchema
  .extend({
    headers: z.array(z.object({ name: z.string(), value: z.string() })),
    /** The body as plain text: nothing remote is loaded, links are shown as text. */
    body_text: z.string().nullable(),
    links: z.array(z.object({ text: z.string(), href: z.string() })),
    raw_sha256: z.string(),
  })
  .meta({ id: 'QuarantineMessageDetail' });

export const restoreRequestSchema = z
  .object({
    id: z.string(),
    kind: z.enum(['email', 'original']),
    requested_by: z.string(),
    commentary: z.string(),
    mode: z.enum(RESTORE_MODES),
    status: z.enum(RESTORE_STATUSES),
    created_at: z.string(),
    decided_at: z.string().nullable(),
    decline_reason: z.string().nullable(),
    message: messageSummarySchema,
  })
  .meta({ id: 'RestoreRequest' });
export type RestoreRequestItem = z.infer<typeof restoreRequestSchema>;

export const listQuerySchema = z
  .object({
    q: z.string().trim().max(200).refine(noNul, 'must not contain a NUL character').optional(),
    status: z.enum(RESTORE_STATUSES).optional(),
    verdict: z.enum(VERDICTS).optional(),
    state: z.enum(['quarantined', 'attachments_removed', 'restored']).optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    offset: z.coerce.number().int().min(0).max(100_000).default(0),
  })
  .describe('Query parameters (inline: OpenAPI parameters cannot be references)');

export const restoreRequestListSchema = z
  .object({ items: z.array(restoreRequestSchema), total: z.number().int() })
  .meta({ id: 'RestoreRequestList' });
export const messageListSchema = z
  .object({ items: z.array(messageSummarySchema), total: z.number().int() })
  .meta({ id: 'QuarantineMessageList' });

export const declineBodySchema = z
  .object({ reason: z.string().trim().min(1, 'enter_a_reason').max(2000) })
  .meta({ id: 'DeclineBody' });

export const bulkBodySchema = z
  .object({
    ids: z.array(z.uuid()).min(1).max(200),
    action: z.enum(['approve', 'decline']),
    reason: z.string().trim().max(2000).optional(),
  })
  .refine((b) => b.action === 'approve' || (b.reason ?? '').length > 0, {
    path: ['reason'],
    message: 'enter_a_reason',
  })
  .meta({ id: 'BulkRestoreBody' });

export const bulkResultSchema = z
  .object({
    results: z.array(
      z.object({ id: z.string(), status: z.enum(RESTORE_STATUSES).nullable(), error: z.string().nullable() }),
    ),
  })
  .meta({ id: 'BulkRestoreResult' });
