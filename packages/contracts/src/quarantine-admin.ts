import { z } from 'zod/mini';
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
    to: z.optional(z.email().check(z.maxLength(320))),
    confirm_malware: z.optional(z.boolean()),
  })
  .register(z.globalRegistry, { id: 'QuarantineReleaseBody' });
export type ReleaseBody = z.infer<typeof releaseBodySchema>;

/** POST /api/v1/quarantine/messages/bulk */
export const QUARANTINE_BULK_MAX = 200;
export const BULK_MESSAGE_ACTIONS = ['release', 'delete'] as const;
export const messageBulkBodySchema = z
  .object({
    ids: z.array(z.uuid()).check(z.minLength(1), z.maxLength(QUARANTINE_BULK_MAX)),
    action: z.enum(BULK_MESSAGE_ACTIONS),
    to: z.optional(z.email().check(z.maxLength(320))),
    confirm_malware: z.optional(z.boolean()),
  })
  .register(z.globalRegistry, { id: 'QuarantineBulkBody' });
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
        reason: z.nullable(z.enum(BULK_SKIP_REASONS)),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'QuarantineBulkResult' });
export type MessageBulkResult = z.infer<typeof messageBulkResultSchema>;

/** POST /api/v1/quarantine/messages/{id}/block_sender */
export const BLOCK_SCOPES = ['sender', 'domain'] as const;
export const blockSenderBodySchema = z
  .object({ scope: z.enum(BLOCK_SCOPES) })
  .register(z.globalRegistry, { id: 'QuarantineBlockSenderBody' });
export const blockSenderResponseSchema = z
  .object({ list: z.literal('block'), value: z.string(), added: z.boolean() })
  .register(z.globalRegistry, { id: 'QuarantineBlockSenderResult' });

/** POST /api/v1/quarantine/messages/{id}/feedback */
export const feedbackBodySchema = z
  .object({ feedback: z.enum(MESSAGE_FEEDBACKS) })
  .register(z.globalRegistry, { id: 'QuarantineFeedbackBody' });
export const feedbackResponseSchema = z
  .object({ feedback: z.enum(MESSAGE_FEEDBACKS), feedback_by: z.string(), feedback_at: z.string() })
  .register(z.globalRegistry, { id: 'QuarantineFeedbackResult' });

/** GET/PUT /api/v1/quarantine/retention: days a held message is kept before the purge job deletes it. */
export const RETENTION_MIN_DAYS = 1;
export const RETENTION_MAX_DAYS = 3650;
export const retentionSchema = z
  .object({ days: z.int().check(z.gte(RETENTION_MIN_DAYS), z.lte(RETENTION_MAX_DAYS)) })
  .register(z.globalRegistry, { id: 'QuarantineRetention' });

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
    size: z.int(),
    sha256: z.string(),
    state: z.enum(ATTACHMENT_STATES),
  })
  .register(z.globalRegistry, { id: 'QuarantineAttachment' });

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
    size: z.int(),
    attachments: z.array(attachmentSchema),
    /** An admin's 'is spam' / 'not spam' feedback on the message, and who gave it when. */
    feedback: z.nullable(z.enum(MESSAGE_FEEDBACKS)),
    feedback_by: z.nullable(z.string()),
    feedback_at: z.nullable(z.string()),
    /** Retracted from the recipient's mailbox after delivery (issue 36); null: held at the door. */
    retracted_at: z.optional(z.nullable(z.string())),
  })
  .register(z.globalRegistry, { id: 'QuarantineMessageSummary' });
export type MessageSummary = z.infer<typeof messageSummarySchema>;

export const messageDetailSchema = z
  .extend(messageSummarySchema, {
    headers: z.array(z.object({ name: z.string(), value: z.string() })),
    /** The body as plain text: nothing remote is loaded, links are shown as text. */
    body_text: z.nullable(z.string()),
    links: z.array(z.object({ text: z.string(), href: z.string() })),
    raw_sha256: z.string(),
  })
  .register(z.globalRegistry, { id: 'QuarantineMessageDetail' });
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
    decided_at: z.nullable(z.string()),
    decline_reason: z.nullable(z.string()),
    message: messageSummarySchema,
  })
  .register(z.globalRegistry, { id: 'RestoreRequest' });
export type RestoreRequestItem = z.infer<typeof restoreRequestSchema>;

export const listQuerySchema = z
  .object({
    q: z.optional(
      z.string().check(z.trim(), z.maxLength(200), z.refine(noNul, 'must not contain a NUL character')),
    ),
    status: z.optional(z.enum(RESTORE_STATUSES)),
    verdict: z.optional(z.enum(VERDICTS)),
    state: z.optional(z.enum(LISTED_MESSAGE_STATES)),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
  })
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });

export const restoreRequestListSchema = z
  .object({ items: z.array(restoreRequestSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'RestoreRequestList' });
export const messageListSchema = z
  .object({ items: z.array(messageSummarySchema), total: z.int() })
  .register(z.globalRegistry, { id: 'QuarantineMessageList' });

export const declineBodySchema = z
  .object({ reason: z.string().check(z.trim(), z.minLength(1, 'enter_a_reason'), z.maxLength(2000)) })
  .register(z.globalRegistry, { id: 'DeclineBody' });

export const bulkBodySchema = z
  .object({
    ids: z.array(z.uuid()).check(z.minLength(1), z.maxLength(200)),
    action: z.enum(['approve', 'decline']),
    reason: z.optional(z.string().check(z.trim(), z.maxLength(2000))),
  })
  .check(
    z.refine((b) => b.action === 'approve' || (b.reason ?? '').length > 0, {
      path: ['reason'],
      message: 'enter_a_reason',
    }),
  )
  .register(z.globalRegistry, { id: 'BulkRestoreBody' });

export const bulkResultSchema = z
  .object({
    results: z.array(
      z.object({
        id: z.string(),
        status: z.nullable(z.enum(RESTORE_STATUSES)),
        error: z.nullable(z.string()),
      }),
    ),
  })
  .register(z.globalRegistry, { id: 'BulkRestoreResult' });
