import { z } from 'zod/mini';
import { DIGEST_SCHEDULES } from './deployment.ts';
import { RESTORE_MODES } from './quarantine.ts';
import { wordingSchema } from './wording.ts';

/**
 * Settings → User Interaction (admins): what recipients of held mail may do and how they are
 * told (Quarantine), and what the report buttons do (Phishing Reports). The one place each of
 * these is changed; the Policy and Settings screens link here.
 */
export const USER_INTERACTION_SETTINGS_API = {
  quarantine: '/api/v1/user_interaction/quarantine_settings',
  reports: '/api/v1/user_interaction/report_settings',
} as const;

/** Verdicts a recipient may get back (known malware never is). */
export const RESTORABLE_VERDICTS = ['phishing', 'spam', 'suspicious'] as const;
export type RestorableVerdict = (typeof RESTORABLE_VERDICTS)[number];

/** Who decides restore requests: every admin, or only the admins named. */
export const APPROVER_MODES = ['admins', 'named'] as const;
export type ApproverMode = (typeof APPROVER_MODES)[number];
export const APPROVERS_MAX = 20;

/**
 * How a recipient hears of a message held for them: a notice each time, only in the digest, or
 * not at all (their quarantine in the console, or an admin, is then the way to it).
 */
export const NOTIFICATION_FREQUENCIES = ['per_message', 'digest_only', 'off'] as const;
export type NotificationFrequency = (typeof NOTIFICATION_FREQUENCIES)[number];

export const NOTICE_SUBJECT_MAX = 150;
export const NOTICE_INTRO_MAX = 500;
export const DIGEST_DAYS_MAX = 30;
/** The placeholders each text may hold. */
export const NOTICE_SUBJECT_PLACEHOLDERS = ['subject'] as const;
export const DIGEST_SUBJECT_PLACEHOLDERS = ['count', 'period'] as const;

/** The quarantine settings as the tenant stores them (`tenants.quarantine_settings`). */
export interface StoredQuarantineSettings {
  approvers: ApproverMode;
  approver_ids: string[];
  per_message: boolean;
  notice_subject: string;
  notice_intro: string;
  digest_subject: string;
  digest_intro: string;
  digest_verdicts: RestorableVerdict[];
  /** Null: the schedule's own period (1 day, or 7). */
  digest_days: number | null;
}
export const DEFAULT_QUARANTINE_SETTINGS: StoredQuarantineSettings = {
  approvers: 'admins',
  approver_ids: [],
  per_message: true,
  notice_subject: '',
  notice_intro: '',
  digest_subject: '',
  digest_intro: '',
  digest_verdicts: [...RESTORABLE_VERDICTS],
  digest_days: null,
};

const stringOr = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);

export function quarantineSettingsFrom(stored: unknown): StoredQuarantineSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const d = DEFAULT_QUARANTINE_SETTINGS;
  const verdicts = Array.isArray(s.digest_verdicts)
    ? RESTORABLE_VERDICTS.filter((v) => (s.digest_verdicts as unknown[]).includes(v))
    : d.digest_verdicts;
  const days = s.digest_days;
  return {
    approvers: s.approvers === 'named' ? 'named' : 'admins',
    approver_ids: Array.isArray(s.approver_ids)
      ? (s.approver_ids as unknown[]).filter((id): id is string => typeof id === 'string')
      : [],
    per_message: s.per_message !== false,
    notice_subject: stringOr(s.notice_subject, d.notice_subject),
    notice_intro: stringOr(s.notice_intro, d.notice_intro),
    digest_subject: stringOr(s.digest_subject, d.digest_subject),
    digest_intro: stringOr(s.digest_intro, d.digest_intro),
    digest_verdicts: verdicts,
    digest_days:
      typeof days === 'number' && Number.isInteger(days) && days >= 1 && days <= DIGEST_DAYS_MAX
        ? days
        : null,
  };
}

/** The frequency the stored settings mean. */
export function frequencyOf(perMessage: boolean, schedule: (typeof DIGEST_SCHEDULES)[number]) {
  return perMessage ? 'per_message' : schedule === 'off' ? 'off' : 'digest_only';
}

const restoreSchema = z.strictObject({
  restore_mode: z.enum(RESTORE_MODES),
  identification_required: z.boolean(),
});

/** PUT /api/v1/user_interaction/quarantine_settings: everything at once. */
export const quarantineSettingsInputSchema = z
  .strictObject({
    approvers: z.enum(APPROVER_MODES),
    approver_ids: z.array(z.uuid()).check(z.maxLength(APPROVERS_MAX)),
    verdicts: z.strictObject({ phishing: restoreSchema, spam: restoreSchema, suspicious: restoreSchema }),
    notification_frequency: z.enum(NOTIFICATION_FREQUENCIES),
    digest_schedule: z.enum(DIGEST_SCHEDULES),
    digest_verdicts: z.array(z.enum(RESTORABLE_VERDICTS)).check(z.maxLength(RESTORABLE_VERDICTS.length)),
    digest_days: z.nullable(z.int().check(z.gte(1), z.lte(DIGEST_DAYS_MAX))),
    notice_subject: wordingSchema(NOTICE_SUBJECT_MAX, NOTICE_SUBJECT_PLACEHOLDERS),
    notice_intro: wordingSchema(NOTICE_INTRO_MAX),
    digest_subject: wordingSchema(NOTICE_SUBJECT_MAX, DIGEST_SUBJECT_PLACEHOLDERS),
    digest_intro: wordingSchema(NOTICE_INTRO_MAX),
  })
  .check(
    z.superRefine((s, ctx) => {
      if (s.approvers === 'named' && s.approver_ids.length === 0)
        ctx.addIssue({ code: 'custom', path: ['approver_ids'], message: 'approvers_empty', input: s });
      if (s.notification_frequency === 'digest_only' && s.digest_schedule === 'off')
        ctx.addIssue({ code: 'custom', path: ['digest_schedule'], message: 'digest_needed', input: s });
      if (s.notification_frequency === 'off' && s.digest_schedule !== 'off')
        ctx.addIssue({ code: 'custom', path: ['digest_schedule'], message: 'digest_with_off', input: s });
      if (s.digest_schedule !== 'off' && s.digest_verdicts.length === 0)
        ctx.addIssue({
          code: 'custom',
          path: ['digest_verdicts'],
          message: 'digest_verdicts_empty',
          input: s,
        });
    }),
  );
export type QuarantineSettingsInput = z.input<typeof quarantineSettingsInputSchema>;

const wordingDefaults = z.object({
  notice_subject: z.string(),
  notice_intro: z.string(),
  digest_subject: z.string(),
  digest_intro: z.string(),
});

export const quarantineSettingsSchema = z
  .object({
    approvers: z.enum(APPROVER_MODES),
    approver_ids: z.array(z.string()),
    /** The admins who may be named (active admins of the tenant). */
    approver_candidates: z.array(z.object({ id: z.string(), email: z.string(), name: z.string() })),
    verdicts: z.object({ phishing: restoreSchema, spam: restoreSchema, suspicious: restoreSchema }),
    notification_frequency: z.enum(NOTIFICATION_FREQUENCIES),
    digest_schedule: z.enum(DIGEST_SCHEDULES),
    digest_verdicts: z.array(z.enum(RESTORABLE_VERDICTS)),
    digest_days: z.nullable(z.int()),
    notice_subject: z.string(),
    notice_intro: z.string(),
    digest_subject: z.string(),
    digest_intro: z.string(),
    /** What an empty text means. */
    defaults: wordingDefaults,
  })
  .register(z.globalRegistry, { id: 'QuarantineSettings' });
export type QuarantineSettings = z.infer<typeof quarantineSettingsSchema>;

// ---------------------------------------------------------------------------------------------
// Phishing Reports

/** What reporting a held message as phishing does to it while an admin has not decided. */
export const ON_REPORT_ACTIONS = ['hold', 'keep'] as const;
export type OnReportAction = (typeof ON_REPORT_ACTIONS)[number];
/** What a confirmed report removes: every recipient's held copy, or the reported one only. */
export const CONFIRM_SCOPES = ['all_copies', 'reported_copy'] as const;
export type ConfirmScope = (typeof CONFIRM_SCOPES)[number];
/** Whether a confirmation blocks the sender: the admin chooses each time, always, or never. */
export const BLOCK_SENDER_MODES = ['ask', 'always', 'never'] as const;
export type BlockSenderMode = (typeof BLOCK_SENDER_MODES)[number];

export const REPORT_TEXT_MAX = 500;

export interface StoredReportSettings {
  /** The notice's report buttons: "Report as phishing" and "Report as safe". */
  button_phishing: boolean;
  button_safe: boolean;
  on_report: OnReportAction;
  receipt_email: boolean;
  receipt_text: string;
  verdict_email: boolean;
  confirmed_text: string;
  dismissed_text: string;
  confirm_scope: ConfirmScope;
  block_sender: BlockSenderMode;
  learn: boolean;
}
export const DEFAULT_REPORT_SETTINGS: StoredReportSettings = {
  button_phishing: true,
  button_safe: true,
  on_report: 'keep',
  receipt_email: false,
  receipt_text: '',
  verdict_email: true,
  confirmed_text: '',
  dismissed_text: '',
  confirm_scope: 'all_copies',
  block_sender: 'ask',
  learn: true,
};

export function reportSettingsFrom(stored: unknown): StoredReportSettings {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const d = DEFAULT_REPORT_SETTINGS;
  const bool = (key: keyof StoredReportSettings) =>
    typeof s[key] === 'boolean' ? (s[key] as boolean) : (d[key] as boolean);
  const oneOf = <T extends string>(value: unknown, list: readonly T[], fallback: T): T =>
    list.includes(value as T) ? (value as T) : fallback;
  return {
    button_phishing: bool('button_phishing'),
    button_safe: bool('button_safe'),
    on_report: oneOf(s.on_report, ON_REPORT_ACTIONS, d.on_report),
    receipt_email: bool('receipt_email'),
    receipt_text: stringOr(s.receipt_text, d.receipt_text),
    verdict_email: bool('verdict_email'),
    confirmed_text: stringOr(s.confirmed_text, d.confirmed_text),
    dismissed_text: stringOr(s.dismissed_text, d.dismissed_text),
    confirm_scope: oneOf(s.confirm_scope, CONFIRM_SCOPES, d.confirm_scope),
    block_sender: oneOf(s.block_sender, BLOCK_SENDER_MODES, d.block_sender),
    learn: bool('learn'),
  };
}

/** PUT /api/v1/user_interaction/report_settings: everything at once. */
export const reportSettingsInputSchema = z.strictObject({
  button_phishing: z.boolean(),
  button_safe: z.boolean(),
  on_report: z.enum(ON_REPORT_ACTIONS),
  receipt_email: z.boolean(),
  receipt_text: wordingSchema(REPORT_TEXT_MAX),
  verdict_email: z.boolean(),
  confirmed_text: wordingSchema(REPORT_TEXT_MAX),
  dismissed_text: wordingSchema(REPORT_TEXT_MAX),
  confirm_scope: z.enum(CONFIRM_SCOPES),
  block_sender: z.enum(BLOCK_SENDER_MODES),
  learn: z.boolean(),
});
export type ReportSettingsInput = z.input<typeof reportSettingsInputSchema>;

export const reportSettingsSchema = z
  .object({
    button_phishing: z.boolean(),
    button_safe: z.boolean(),
    on_report: z.enum(ON_REPORT_ACTIONS),
    receipt_email: z.boolean(),
    receipt_text: z.string(),
    verdict_email: z.boolean(),
    confirmed_text: z.string(),
    dismissed_text: z.string(),
    confirm_scope: z.enum(CONFIRM_SCOPES),
    block_sender: z.enum(BLOCK_SENDER_MODES),
    learn: z.boolean(),
    /** What an empty text means (the confirmation's words follow what it removes). */
    defaults: z.object({
      receipt_text: z.string(),
      confirmed_text: z.string(),
      confirmed_text_reported_copy: z.string(),
      dismissed_text: z.string(),
    }),
    /** Read-only: whether the admins are alerted of new reports (User Interaction → Dashboard). */
    admin_alerts: z.boolean(),
  })
  .register(z.globalRegistry, { id: 'ReportSettings' });
export type ReportSettings = z.infer<typeof reportSettingsSchema>;
