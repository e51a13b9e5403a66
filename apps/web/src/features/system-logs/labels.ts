import type { AuditAction, AuditTargetType } from '@moat/contracts/audit';
import { formatDateTime } from '../../lib/format';
import { i18n, type TFunction, type TranslationKey } from '../../lib/i18n';

/** The words of every action the audit log records (a new action is a compile error until it has words). */
export const AUDIT_ACTION_LABEL: Record<AuditAction, TranslationKey> = {
  'Login-Reason': 'systemLogs.action.login_reason',
  'add_on.activate': 'systemLogs.action.add_on_activate',
  'add_on.requested': 'systemLogs.action.add_on_requested',
  'alerts.settings_changed': 'systemLogs.action.alerts_settings_changed',
  'dkim.key_created': 'systemLogs.action.dkim_key_created',
  'dkim.rotation_finished': 'systemLogs.action.dkim_rotation_finished',
  'dkim.rotation_started': 'systemLogs.action.dkim_rotation_started',
  'dkim.signing_disabled': 'systemLogs.action.dkim_signing_disabled',
  'dkim.signing_enabled': 'systemLogs.action.dkim_signing_enabled',
  'dmarc.report_added': 'systemLogs.action.dmarc_report_added',
  'dmarc.dns_checked': 'systemLogs.action.dmarc_dns_checked',
  'dmarc.failure_report_added': 'systemLogs.action.dmarc_failure_report_added',
  'dmarc.tls_report_added': 'systemLogs.action.dmarc_tls_report_added',
  'click_time.settings_changed': 'systemLogs.action.click_time_settings_changed',
  'auth.invite_accepted': 'systemLogs.action.auth_invite_accepted',
  'auth.login': 'systemLogs.action.auth_login',
  'auth.login_blocked': 'systemLogs.action.auth_login_blocked',
  'auth.login_failed': 'systemLogs.action.auth_login_failed',
  'auth.login_link_created': 'systemLogs.action.auth_login_link_created',
  'auth.logout': 'systemLogs.action.auth_logout',
  'auth.logout_reason': 'systemLogs.action.auth_logout_reason',
  'auth.mail_verification_failed': 'systemLogs.action.auth_mail_verification_failed',
  'auth.mail_verified': 'systemLogs.action.auth_mail_verified',
  'auth.mfa_failed': 'systemLogs.action.auth_mfa_failed',
  'auth.one_time_password_replaced': 'systemLogs.action.auth_one_time_password_replaced',
  'auth.password_change_failed': 'systemLogs.action.auth_password_change_failed',
  'auth.password_changed': 'systemLogs.action.auth_password_changed',
  'auth.password_expired': 'systemLogs.action.auth_password_expired',
  'auth.password_reset': 'systemLogs.action.auth_password_reset',
  'auth.password_reset_requested': 'systemLogs.action.auth_password_reset_requested',
  'auth.sessions_end': 'systemLogs.action.auth_sessions_end',
  'auth.sso_accepted': 'systemLogs.action.auth_sso_accepted',
  'auth.sso_failed': 'systemLogs.action.auth_sso_failed',
  'auth.token_login_failed': 'systemLogs.action.auth_token_login_failed',
  'exception.create': 'systemLogs.action.exception_create',
  'exception.delete': 'systemLogs.action.exception_delete',
  'exception.import': 'systemLogs.action.exception_import',
  'gateway.policy_update': 'systemLogs.action.gateway_policy_update',
  'licence.contact_requested': 'systemLogs.action.licence_contact_requested',
  'mfa.disable': 'systemLogs.action.mfa_disable',
  'mfa.disable_failed': 'systemLogs.action.mfa_disable_failed',
  'mfa.enable': 'systemLogs.action.mfa_enable',
  'mfa.reset': 'systemLogs.action.mfa_reset',
  'my_sender.add': 'systemLogs.action.my_sender_add',
  'my_sender.delete': 'systemLogs.action.my_sender_delete',
  'my_sender.move': 'systemLogs.action.my_sender_move',
  'onboarding.complete': 'systemLogs.action.onboarding_complete',
  'onboarding.domain_requested': 'systemLogs.action.onboarding_domain_requested',
  'onboarding.next_hop': 'systemLogs.action.onboarding_next_hop',
  'onboarding.test_message': 'systemLogs.action.onboarding_test_message',
  'phishing_report.confirm': 'systemLogs.action.phishing_report_confirm',
  'phishing_report.dismiss': 'systemLogs.action.phishing_report_dismiss',
  'policy.update': 'systemLogs.action.policy_update',
  'quarantine.admin_delete': 'systemLogs.action.quarantine_admin_delete',
  'quarantine.admin_download': 'systemLogs.action.quarantine_admin_download',
  'quarantine.admin_release': 'systemLogs.action.quarantine_admin_release',
  'quarantine.admin_release_malware': 'systemLogs.action.quarantine_admin_release_malware',
  'quarantine.admin_retry': 'systemLogs.action.quarantine_admin_retry',
  'quarantine.feedback': 'systemLogs.action.quarantine_feedback',
  'quarantine.hold': 'systemLogs.action.quarantine_hold',
  'quarantine.policy_update': 'systemLogs.action.quarantine_policy_update',
  'quarantine.purge': 'systemLogs.action.quarantine_purge',
  'quarantine.release': 'systemLogs.action.quarantine_release',
  'quarantine.release_original': 'systemLogs.action.quarantine_release_original',
  'quarantine.reported_phishing': 'systemLogs.action.quarantine_reported_phishing',
  'quarantine.reported_safe': 'systemLogs.action.quarantine_reported_safe',
  'quarantine.restore_requested': 'systemLogs.action.quarantine_restore_requested',
  'quarantine.retention': 'systemLogs.action.quarantine_retention',
  'quarantine.strip': 'systemLogs.action.quarantine_strip',
  'quarantine.verify_recipient': 'systemLogs.action.quarantine_verify_recipient',
  'retraction.connection_update': 'systemLogs.action.retraction_connection_update',
  'retraction.connection_test': 'systemLogs.action.retraction_connection_test',
  'retraction.start': 'systemLogs.action.retraction_start',
  'retraction.finish': 'systemLogs.action.retraction_finish',
  'restore_request.approve': 'systemLogs.action.restore_request_approve',
  'restore_request.decline': 'systemLogs.action.restore_request_decline',
  'sender_list.block': 'systemLogs.action.sender_list_block',
  'settings.sign_in_updated': 'systemLogs.action.settings_sign_in_updated',
  'outbound.credential_created': 'systemLogs.action.outbound_credential_created',
  'outbound.credential_revoked': 'systemLogs.action.outbound_credential_revoked',
  'outbound.held_released': 'systemLogs.action.outbound_held_released',
  'outbound.held_declined': 'systemLogs.action.outbound_held_declined',
  'dlp.data_type_changed': 'systemLogs.action.dlp_data_type_changed',
  'dlp.rule_created': 'systemLogs.action.dlp_rule_created',
  'dlp.rule_changed': 'systemLogs.action.dlp_rule_changed',
  'dlp.rule_deleted': 'systemLogs.action.dlp_rule_deleted',
  'settings.update': 'systemLogs.action.settings_update',
  'spam_learning.ham': 'systemLogs.action.spam_learning_ham',
  'spam_learning.spam': 'systemLogs.action.spam_learning_spam',
  'tenant.application_mode': 'systemLogs.action.tenant_application_mode',
  'tenant.apps_update': 'systemLogs.action.tenant_apps_update',
  'smart_banners.update': 'systemLogs.action.smart_banners_update',
  'tenant.create': 'systemLogs.action.tenant_create',
  'tenant.renamed': 'systemLogs.action.tenant_renamed',
  'tenant.domain_add': 'systemLogs.action.tenant_domain_add',
  'tenant.features_set': 'systemLogs.action.tenant_features_set',
  'tenant.logo_cleared': 'systemLogs.action.tenant_logo_cleared',
  'tenant.logo_set': 'systemLogs.action.tenant_logo_set',
  'tenant.recipient_verification_set': 'systemLogs.action.tenant_recipient_verification_set',
  'tenant.unified_quarantine': 'systemLogs.action.tenant_unified_quarantine',
  'tenant.update': 'systemLogs.action.tenant_update',
  'trial.extension_approved': 'systemLogs.action.trial_extension_approved',
  'trial.extension_declined': 'systemLogs.action.trial_extension_declined',
  'trial.extension_requested': 'systemLogs.action.trial_extension_requested',
  'user_interaction.quarantine_settings': 'systemLogs.action.user_interaction_quarantine_settings',
  'user_interaction.report_settings': 'systemLogs.action.user_interaction_report_settings',
  'user.create': 'systemLogs.action.user_create',
  'user.created': 'systemLogs.action.user_created',
  'user.disable': 'systemLogs.action.user_disable',
  'user.enable': 'systemLogs.action.user_enable',
  'user.invite': 'systemLogs.action.user_invite',
  'user.invite_resend': 'systemLogs.action.user_invite_resend',
  'user.password_change': 'systemLogs.action.user_password_change',
  'user.update': 'systemLogs.action.user_update',
  'vip.create': 'systemLogs.action.vip_create',
  'vip.delete': 'systemLogs.action.vip_delete',
  'vip.update': 'systemLogs.action.vip_update',
};

/** The words of what an entry acted on. */
export const AUDIT_TARGET_LABEL: Record<AuditTargetType, TranslationKey> = {
  add_on: 'systemLogs.targetType.add_on',
  dmarc_report: 'systemLogs.targetType.dmarc_report',
  exception: 'systemLogs.targetType.exception',
  message: 'systemLogs.targetType.message',
  my_sender: 'systemLogs.targetType.my_sender',
  phishing_report: 'systemLogs.targetType.phishing_report',
  policy: 'systemLogs.targetType.policy',
  quarantine_message: 'systemLogs.targetType.quarantine_message',
  restore_request: 'systemLogs.targetType.restore_request',
  mailbox_connection: 'systemLogs.targetType.mailbox_connection',
  retraction: 'systemLogs.targetType.retraction',
  tenant: 'systemLogs.targetType.tenant',
  trial_extension_request: 'systemLogs.targetType.trial_extension_request',
  user: 'systemLogs.targetType.user',
  vip: 'systemLogs.targetType.vip',
};

/** The words of the details an entry records most often; any other is said from its name. */
export const AUDIT_DETAIL_LABEL: Readonly<Record<string, TranslationKey>> = {
  action: 'systemLogs.detail.action',
  brand: 'systemLogs.detail.brand',
  after: 'systemLogs.detail.after',
  before: 'systemLogs.detail.before',
  block_sender: 'systemLogs.detail.block_sender',
  email: 'systemLogs.detail.email',
  engine: 'systemLogs.detail.engine',
  expires_at: 'systemLogs.detail.expires_at',
  filename: 'systemLogs.detail.filename',
  from: 'systemLogs.detail.from',
  imported: 'systemLogs.detail.imported',
  kind: 'systemLogs.detail.kind',
  list: 'systemLogs.detail.list',
  loginReason: 'systemLogs.detail.loginReason',
  message_id: 'systemLogs.detail.message_id',
  mode: 'systemLogs.detail.mode',
  reason: 'systemLogs.detail.reason',
  recipient: 'systemLogs.detail.recipient',
  role: 'systemLogs.detail.role',
  scope: 'systemLogs.detail.scope',
  sender: 'systemLogs.detail.sender',
  source: 'systemLogs.detail.source',
  status: 'systemLogs.detail.status',
  subject: 'systemLogs.detail.subject',
  to: 'systemLogs.detail.to',
  value: 'systemLogs.detail.value',
  verdict: 'systemLogs.detail.verdict',
  via: 'systemLogs.detail.via',
};

/** A detail's name when Moat has no words for it: `next_hop` or `nextHop` becomes "Next hop". */
export function humanName(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The values of a detail in words: yes/no, lists joined, nested records as "name: value"; never JSON. */
export function detailValue(value: unknown, yes: string, no: string): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? yes : no;
  // A value that is an identifier (`wrong_password`) is said in words ("wrong password").
  if (typeof value === 'string') {
    // A moment (`2026-12-02T01:38:25.978Z`) is said as the log's own times are.
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value))
      return formatDateTime(value, i18n.language);
    return /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(value) ? value.replace(/_/g, ' ') : value;
  }
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (Array.isArray(value)) return value.map((item) => detailValue(item, yes, no)).join(', ') || '—';
  if (typeof value === 'object') {
    return (
      Object.entries(value as Record<string, unknown>)
        .map(([name, inner]) => `${humanName(name)}: ${detailValue(inner, yes, no)}`)
        .join('; ') || '—'
    );
  }
  return String(value);
}

/**
 * Details whose values are names Moat has words for: the value `phish_request_restore` of `mode`
 * is said as the policy page says it. A value not listed falls back to `detailValue`.
 */
export const AUDIT_VALUE_WORDS: Readonly<Record<string, Readonly<Record<string, TranslationKey>>>> = {
  action: {
    deliver: 'policy.action.deliver',
    deliver_banner: 'policy.action.deliver_banner',
    strip: 'policy.action.strip',
    quarantine: 'policy.action.quarantine',
    quarantine_silent: 'policy.action.quarantine_silent',
  },
  brand: {
    msp: 'systemLogs.brand.msp',
    checkpoint: 'systemLogs.brand.checkpoint',
    firewall: 'systemLogs.brand.firewall',
  },
  mode: {
    automatic: 'policy.restoreMode.automatic',
    request: 'policy.restoreMode.request',
    admin_approve: 'policy.restoreMode.admin_approve',
    phish_request_restore: 'policy.restoreMode.phish_request_restore',
    none: 'policy.restoreMode.none',
  },
  role: { admin: 'users.roles.admin', user: 'users.roles.user' },
  verdict: {
    phishing: 'policy.verdict.phishing',
    malware: 'policy.verdict.malware',
    spam: 'policy.verdict.spam',
    suspicious: 'policy.verdict.suspicious',
  },
};

/** A detail's value as the console says it: its own words where it has them, else `detailValue`. */
export function detailInWords(name: string, value: unknown, t: TFunction): string {
  const words = Object.hasOwn(AUDIT_VALUE_WORDS, name) ? AUDIT_VALUE_WORDS[name] : undefined;
  const key = words && typeof value === 'string' && Object.hasOwn(words, value) ? words[value] : undefined;
  return key ? t(key) : detailValue(value, t('systemLogs.yes'), t('systemLogs.no'));
}
