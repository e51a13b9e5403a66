import { z } from 'zod/mini';
import { listQuerySchema, RANGE_ORDER_MESSAGE, rangeInOrder, textFilterParam } from './list.ts';

/**
 * System Settings → System Logs (issue 12): the tenant's audit log — who did what to what, when
 * and from where — for admins. The log only grows; nothing here changes it.
 */
export const AUDIT_API = {
  entries: '/api/v1/audit_log',
  /** The list as CSV (its filters and sort). */
  export: '/api/v1/audit_log/export',
} as const;

export const AUDIT_SORTS = ['created_at', 'action', 'actor'] as const;
export type AuditSort = (typeof AUDIT_SORTS)[number];

/** Who acted: a signed-in user, Moat itself, an operator's command, or someone not signed in. */
export const AUDIT_ACTOR_TYPES = ['user', 'system', 'cli', 'anonymous'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * Every action the audit log records: the server writes no other (its type is this list), and
 * the console has words for each one (a new action is a compile error until it has them).
 */
export const AUDIT_ACTIONS = [
  /** A support person's reason for signing in (SPEC: Set log (Login-Reason)). */
  'Login-Reason',
  'add_on.activate',
  'add_on.requested',
  'alerts.settings_changed',
  'auth.invite_accepted',
  'auth.login',
  'auth.login_blocked',
  'auth.login_failed',
  'auth.login_link_created',
  'auth.logout',
  'auth.logout_reason',
  'auth.mail_verification_failed',
  'auth.mail_verified',
  'auth.mfa_failed',
  'auth.one_time_password_replaced',
  'auth.password_change_failed',
  'auth.password_changed',
  'auth.password_expired',
  'auth.password_reset',
  'auth.password_reset_requested',
  'auth.sessions_end',
  'auth.sso_accepted',
  'auth.sso_failed',
  'auth.token_login_failed',
  'click_time.settings_changed',
  'dkim.key_created',
  'dkim.rotation_finished',
  'dkim.rotation_started',
  'dkim.signing_disabled',
  'dkim.signing_enabled',
  'dlp.data_type_changed',
  'dlp.rule_created',
  'dlp.rule_changed',
  'dlp.rule_deleted',
  'dmarc.report_added',
  'dmarc.dns_checked',
  'dmarc.failure_report_added',
  'dmarc.tls_report_added',
  'exception.create',
  'exception.delete',
  'exception.import',
  'gateway.policy_update',
  'licence.contact_requested',
  'outbound.credential_created',
  'outbound.credential_revoked',
  'outbound.held_released',
  'outbound.held_declined',
  'mfa.disable',
  'mfa.disable_failed',
  'mfa.enable',
  'mfa.reset',
  'my_sender.add',
  'my_sender.delete',
  'my_sender.move',
  'onboarding.complete',
  'onboarding.domain_requested',
  'onboarding.next_hop',
  'onboarding.test_message',
  'phishing_report.confirm',
  'phishing_report.dismiss',
  'policy.update',
  'quarantine.admin_delete',
  'quarantine.admin_download',
  'quarantine.admin_release',
  'quarantine.admin_release_malware',
  'quarantine.admin_retry',
  'quarantine.feedback',
  'quarantine.hold',
  'quarantine.policy_update',
  'quarantine.purge',
  'quarantine.release',
  'quarantine.release_original',
  'quarantine.reported_phishing',
  'quarantine.reported_safe',
  'quarantine.restore_requested',
  'quarantine.retention',
  'quarantine.strip',
  'quarantine.verify_recipient',
  'restore_request.approve',
  'retraction.connection_update',
  'retraction.connection_test',
  'retraction.start',
  'retraction.finish',
  'restore_request.decline',
  'sender_list.block',
  'settings.sign_in_updated',
  'settings.update',
  'spam_learning.ham',
  'spam_learning.spam',
  'tenant.application_mode',
  'tenant.apps_update',
  'smart_banners.update',
  'tenant.create',
  'tenant.renamed',
  'tenant.domain_add',
  'tenant.features_set',
  'tenant.logo_cleared',
  'tenant.logo_set',
  'tenant.recipient_verification_set',
  'tenant.unified_quarantine',
  'tenant.update',
  'trial.extension_approved',
  'trial.extension_declined',
  'trial.extension_requested',
  'user_interaction.quarantine_settings',
  'user_interaction.report_settings',
  'user.create',
  'user.created',
  'user.disable',
  'user.enable',
  'user.invite',
  'user.invite_resend',
  'user.password_change',
  'user.update',
  'vip.create',
  'vip.delete',
  'vip.update',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an entry acted on. */
export const AUDIT_TARGET_TYPES = [
  'add_on',
  'dmarc_report',
  'exception',
  'message',
  'my_sender',
  'phishing_report',
  'policy',
  'quarantine_message',
  'restore_request',
  'mailbox_connection',
  'retraction',
  'tenant',
  'trial_extension_request',
  'user',
  'vip',
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export const auditQuerySchema = z
  .extend(listQuerySchema(AUDIT_SORTS, 'created_at'), {
    /** Part of the actor's address (or `cli`, `system`). */
    actor: textFilterParam,
    actor_type: z.optional(z.enum(AUDIT_ACTOR_TYPES)),
    /** An action or the start of one: `user.` lists every change to users. */
    action: textFilterParam,
    /** Part of the target's kind or id. */
    target: textFilterParam,
  })
  .check(z.refine(rangeInOrder, RANGE_ORDER_MESSAGE))
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });
export type AuditQuery = z.input<typeof auditQuerySchema>;

export const auditEntrySchema = z.object({
  id: z.string(),
  created_at: z.string(),
  actor_type: z.enum(AUDIT_ACTOR_TYPES),
  /** The actor's address, or `cli`, `system`, `anonymous`. */
  actor: z.string(),
  action: z.string(),
  target_type: z.nullable(z.string()),
  target_id: z.nullable(z.string()),
  ip: z.nullable(z.string()),
  /** What changed, as recorded (no secrets are ever recorded). */
  details: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

export const auditListSchema = z
  .object({ items: z.array(auditEntrySchema), total: z.int() })
  .register(z.globalRegistry, { id: 'AuditList' });
export type AuditListResponse = z.infer<typeof auditListSchema>;

/** The CSV columns of the export, in this order. */
export const AUDIT_CSV_HEADER = [
  'created_at',
  'actor_type',
  'actor',
  'action',
  'target_type',
  'target_id',
  'ip',
  'details',
] as const;
