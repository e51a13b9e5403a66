import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder } from './list.ts';
import { RESTORE_STATUSES, VERDICTS } from './quarantine.ts';
import { ATTACHMENT_STATES } from './quarantine-admin.ts';

/**
 * Phishing Reports, the User Interaction dashboard, Modified Attachments and the admins' alerts
 * (issue 11): what a recipient reported from the action page and what the admins decided.
 */
export const USER_INTERACTION_API = {
  reports: '/api/v1/phishing_reports',
  reportsExport: '/api/v1/phishing_reports/export',
  confirm: '/api/v1/phishing_reports/:id/confirm',
  dismiss: '/api/v1/phishing_reports/:id/dismiss',
  summary: '/api/v1/user_interaction/summary',
  modifiedAttachments: '/api/v1/modified_attachments',
  modifiedAttachmentsExport: '/api/v1/modified_attachments/export',
  alertSettings: '/api/v1/alerts/settings',
  alertBadge: '/api/v1/alerts/badge',
} as const;

/** reported_phishing: the recipient says it is phishing; reported_safe: that it is safe. */
export const REPORT_KINDS = ['reported_phishing', 'reported_safe'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
/** confirmed: the admin agrees it is a threat (every copy hidden); dismissed: marked safe. */
export const REPORT_STATUSES = ['open', 'confirmed', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const REPORT_SORTS = ['created_at', 'reporter', 'sender', 'subject', 'status'] as const;

export const reportsQuerySchema = z
  .extend(listQuerySchema(REPORT_SORTS, 'created_at'), {
    status: z.optional(z.enum(REPORT_STATUSES)),
    kind: z.optional(z.enum(REPORT_KINDS)),
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type ReportsQuery = z.input<typeof reportsQuerySchema>;

export const phishingReportSchema = z.object({
  id: z.string(),
  created_at: z.string(),
  reporter: z.string(),
  kind: z.enum(REPORT_KINDS),
  status: z.enum(REPORT_STATUSES),
  block_sender: z.boolean(),
  decided_at: z.nullable(z.string()),
  message_id: z.string(),
  sender: z.string(),
  subject: z.string(),
  verdict: z.enum(VERDICTS),
  received_at: z.string(),
});
export type PhishingReport = z.infer<typeof phishingReportSchema>;

export const reportsListSchema = z
  .object({ items: z.array(phishingReportSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'PhishingReportsList' });
export type ReportsList = z.infer<typeof reportsListSchema>;

export const reportIdParamsSchema = z.object({ id: z.uuid() });
export const confirmReportBodySchema = z.strictObject({ block_sender: z._default(z.boolean(), false) });
export const reportDecisionSchema = z.object({
  status: z.enum(REPORT_STATUSES),
  /** How many held copies (every recipient's) were hidden by this decision. */
  hidden: z.int(),
});
export type ReportDecision = z.infer<typeof reportDecisionSchema>;

export const summaryQuerySchema = z
  .object({
    from: z.iso.datetime({ offset: true }),
    to: z.iso.datetime({ offset: true }),
  })
  .check(
    z.refine(rangeInOrder, RANGE_ORDER_MESSAGE),
    z.refine((q) => Date.parse(q.to) - Date.parse(q.from) <= 400 * 86_400_000, {
      message: 'the range must not be longer than 400 days',
      path: ['from'],
    }),
  );

export const summarySchema = z.object({
  days: z.array(z.object({ day: z.string(), restore_requests: z.int(), reports: z.int() })),
  totals: z.object({ restore_requests: z.int(), reports: z.int() }),
  /** Restore requests waiting for an admin, and open reports (now, whatever the range). */
  waiting_requests: z.int(),
  open_reports: z.int(),
  /** Of the requests and reports decided in the range: seconds from asking to the decision. */
  decision: z.object({
    decided: z.int(),
    median_seconds: z.nullable(z.number()),
    average_seconds: z.nullable(z.number()),
  }),
});
export type UserInteractionSummary = z.infer<typeof summarySchema>;

export const ATTACHMENT_SORTS = ['received_at', 'recipient', 'filename', 'size'] as const;
export const modifiedAttachmentsQuerySchema = z
  .extend(listQuerySchema(ATTACHMENT_SORTS, 'received_at'), { state: z.optional(z.enum(ATTACHMENT_STATES)) })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type ModifiedAttachmentsQuery = z.input<typeof modifiedAttachmentsQuerySchema>;

export const modifiedAttachmentSchema = z.object({
  id: z.string(),
  filename: z.string(),
  content_type: z.string(),
  size: z.int(),
  state: z.enum(ATTACHMENT_STATES),
  message_id: z.string(),
  received_at: z.string(),
  sender: z.string(),
  recipient: z.string(),
  subject: z.string(),
  verdict: z.enum(VERDICTS),
  /** The latest restore-original request of its message, or `restored` once released. */
  restore_status: z.enum(RESTORE_STATUSES),
});
export type ModifiedAttachment = z.infer<typeof modifiedAttachmentSchema>;
export const modifiedAttachmentsListSchema = z
  .object({ items: z.array(modifiedAttachmentSchema), total: z.int() })
  .register(z.globalRegistry, { id: 'ModifiedAttachmentsList' });
export type ModifiedAttachmentsList = z.infer<typeof modifiedAttachmentsListSchema>;

export const alertSettingsSchema = z.strictObject({
  alert_restore_requests: z.boolean(),
  alert_reports: z.boolean(),
  alert_malware_holds: z.boolean(),
});
export type AlertSettings = z.infer<typeof alertSettingsSchema>;

export const alertBadgeSchema = z.object({
  open_reports: z.int(),
  waiting_requests: z.int(),
  total: z.int(),
});
export type AlertBadge = z.infer<typeof alertBadgeSchema>;
