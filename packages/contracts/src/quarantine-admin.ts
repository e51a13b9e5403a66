import { z } from 'zod';
import { fillPath } from './api-paths.ts';
import { RESTORE_KINDS, RESTORE_MODES, RESTORE_STATUSES, VERDICTS } from './quarantine.ts';
import { noNul } from './validation.ts';

/** The patterns the API registers for the admin paths of the quarantine (`QUARANTINE_ADMIN_API` fills them). */
export const QUARANTINE_ADMIN_ROUTES = {
  restoreRequests: '/api/v1/restore_requests',
  restoreRequestApprove: '/api/v1/restore_requests/:id/approve',
  restoreRequestDecline: '/api/v1/restore_requests/:id/decline',
  restoreRequestsBulk: '/api/v1/restore_requests/bulk',
  messages: '/api/v1/quarantine/messages',
  message: '/api/v1/quarantine/messages/:id',
  messageRelease: '/api/v1/quarantine/messages/:id/release',
  messageRetry: '/api/v1/quarantine/messages/:id/retry',
  messagesBulk: '/api/v1/quarantine/messages/bulk',
  messageEml: '/api/v1/quarantine/messages/:id/eml',
  messageBlockSender: '/api/v1/quarantine/messages/:id/block_sender',
  messageFeedback: '/api/v1/quarantine/messages/:id/feedback',
  retention: '/api/v1/quarantine/retention',
} as const;

/** Admin paths of the quarantine (DESIGN §4: /api/v1/<resource>). */
export const QUARANTINE_ADMIN_API = {
  restoreRequests: QUARANTINE_ADMIN_ROUTES.restoreRequests,
  restoreRequestAction: (id: string, action: 'approve' | 'decline') =>
    fillPath(
      action === 'approve'
        ? QUARANTINE_ADMIN_ROUTES.restoreRequestApprove
        : QUARANTINE_ADMIN_ROUTES.restoreRequestDecline,
      { id },
    ),
  restoreRequestsBulk: QUARANTINE_ADMIN_ROUTES.restoreRequestsBulk,
  messages: QUARANTINE_ADMIN_ROUTES.messages,
  message: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.message, { id }),
  messageRelease: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.messageRelease, { id }),
  messageRetry: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.messageRetry, { id }),
  messagesBulk: QUARANTINE_ADMIN_ROUTES.messagesBulk,
  messageEml: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.messageEml, { id }),
  messageBlockSender: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.messageBlockSender, { id }),
  messageFeedback: (id: string) => fillPath(QUARANTINE_ADMIN_ROUTES.messageFeedback, { id }),
  retention: QUARANTINE_ADMIN_ROUTES.retention,
} as const;

/** Rows per page of the admin lists (the API allows up to 200). */
export const QUARANTINE_PAGE_SIZE = 25;

/** What became of a held message (the `quarantine_messages.state` column). */
export const MESSAGE_STATES = ['quarantined', 'attachments_removed', 'restored', 'deleted'] as const;
export type MessageState = (typeof MESSAGE_STATES)[number];

/** States a held message can be listed in (the `state` filter of GET /api/v1/quarantine/messages). */
export const LISTED_MESSAGE_STATES = [
  'quarantined',
  'attachments_removed',
  'restored',
] as const satisfies readonly MessageState[];
export type ListedMessageState = (typeof LISTED_MESSAGE_STATES)[number];

/** What became of one attachment of a held message. */
export const ATTACHMENT_STATES = ['delivered', 'removed', 'cleaned'] as const;
export type AttachmentState = (typeof ATTACHMENT_STATES)[number];

/** Path parameters of the calls about one request or message. */
export const idParamsSchema = z.object({ id: z.uuid() });

/** POST /api/v1/restore_requests/{id}/approve|decline */
export const restoreDecisionResponseSchema = z.object({ status: z.enum(RESTORE_STATUSES) });

/** An admin's feedback on a held message (recorded on it). */
export const MESSAGE_FEEDBACKS = ['spam', 'not_spam'] as const;
export type MessageFeedback = (typeof MESSAGE_FEEDBACKS)[number];

/** A release of malware without `confirm_malware: true` answers 409 with this code. */
export const MALWARE_CONFIRMATION_REQUIRED = 'malware_confirmation_required';

/**
 * POST /api/v1/quarantine/messages/{id}/release (body optional): to the original recipient, or
 * `to` an address in one of the tenant's own domains; malware needs `confirm_malware: true`.
 */
export const releaseBodySchema = z
  .object({
    to: z.email().max(320).optional(),
    confirm_malware: z.boolean().optional(),
  })
  .meta({ id: 'QuarantineReleaseBody' });
export type ReleaseBody = z.infer<typeof releaseBodySchema>;

/** POST /api/v1/quarantine/messages/bulk */
export const QUARANTINE_BULK_MAX = 200;
export const BULK_MESSAGE_ACTIONS = ['release', 'delete'] as const;
export const messageBulkBodySchema = z
  .object({
    ids: z.array(z.uuid()).min(1).max(QUARANTINE_BULK_MAX),
    action: z.enum(BULK_MESSAGE_ACTIONS),
    to: z.email().max(320).optional(),
    confirm_malware: z.boolean().optional(),
  })
  .meta({ id: 'QuarantineBulkBody' });
export type MessageBulkBody = z.infer<typeof messageBulkBodySchema>;
export const BULK_MESSAGE_OUTCOMES = ['released', 'deleted', 'skipped', 'not_found'] as const;
/** Why a message of a bulk call was left as it was. */
export const BULK_SKIP_REASONS = [
  'already_released',
  'already_deleted',
  'malware_confirmation_required',
] as const;
export type BulkSkipReason = (typeof BULK_SKIP_REASONS)[number];
export const messageBulkResultSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        outcome: z.enum(BULK_MESSAGE_OUTCOMES),
        reason: z.enum(BULK_SKIP_REASONS).nullable(),
      }),
    ),
  })
  .meta({ id: 'QuarantineBulkResult' });
export type MessageBulkResult = z.infer<typeof messageBulkResultSchema>;

/** POST /api/v1/quarantine/messages/{id}/block_sender */
export const BLOCK_SCOPES = ['sender', 'domain'] as const;
export const blockSenderBodySchema = z
  .object({ scope: z.enum(BLOCK_SCOPES) })
  .meta({ id: 'QuarantineBlockSenderBody' });
export const blockSenderResponseSchema = z
  .object({ list: z.literal('block'), value: z.string(), added: z.boolean() })
  .meta({ id: 'QuarantineBlockSenderResult' });

/** POST /api/v1/quarantine/messages/{id}/feedback */
export const feedbackBodySchema = z
  .object({ feedback: z.enum(MESSAGE_FEEDBACKS) })
  .meta({ id: 'QuarantineFeedbackBody' });
export const feedbackResponseSchema = z
  .object({ feedback: z.enum(MESSAGE_FEEDBACKS), feedback_by: z.string(), feedback_at: z.string() })
  .meta({ id: 'QuarantineFeedbackResult' });

/** GET/PUT /api/v1/quarantine/retention: days a held message is kept before the purge job deletes it. */
export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 3650;
export const retentionSchema = z
  .object({ days: z.number().int().min(RETENTION_MIN_DAYS).max(RETENTION_MAX_DAYS) })
  .meta({ id: 'QuarantineRetention' });

/** POST /api/v1/quarantine/messages/{id}/release */
export const releaseResponseSchema = z.object({ status: z.literal('restored') });
/** POST /api/v1/quarantine/messages/{id}/retry */
export const retryResponseSchema = z.object({ status: z.literal('requeued') });
/** DELETE /api/v1/quarantine/messages/{id} */
export const deleteResponseSchema = z.object({ status: z.literal('deleted') });

export const attachmentSchema = z
  .object({
    id: z.string(),
    filename: z.string(),
    content_type: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    state: z.enum(ATTACHMENT_STATES),
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
    state: z.enum(MESSAGE_STATES),
    /** The gateway could not process it: held unscanned; an admin may retry, release or delete it. */
    processing_failed: z.boolean(),
    size: z.number().int(),
    attachments: z.array(attachmentSchema),
    /** An admin's 'is spam' / 'not spam' feedback on the message, and who gave it when. */
    feedback: z.enum(MESSAGE_FEEDBACKS).nullable(),
    feedback_by: z.string().nullable(),
    feedback_at: z.string().nullable(),
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
export type MessageDetail = z.infer<typeof messageDetailSchema>;

export const restoreRequestSchema = z
  .object({
    id: z.string(),
    kind: z.enum(RESTORE_KINDS),
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
    state: z.enum(LISTED_MESSAGE_STATES).optional(),
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
