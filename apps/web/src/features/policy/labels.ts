import type { DigestSchedule } from '@moat/contracts/deployment';
import type { OverrideMatch, PolicyAction } from '@moat/contracts/policy';
import type { RestoreMode, Verdict } from '@moat/contracts/quarantine';
import type { TranslationKey } from '../../lib/i18n';

export const VERDICT_LABEL: Record<Verdict, TranslationKey> = {
  phishing: 'policy.verdict.phishing',
  malware: 'policy.verdict.malware',
  spam: 'policy.verdict.spam',
  suspicious: 'policy.verdict.suspicious',
};

export const ACTION_LABEL: Record<PolicyAction, TranslationKey> = {
  deliver: 'policy.action.deliver',
  deliver_banner: 'policy.action.deliver_banner',
  strip: 'policy.action.strip',
  quarantine: 'policy.action.quarantine',
  quarantine_silent: 'policy.action.quarantine_silent',
};

export const RESTORE_LABEL: Record<RestoreMode, TranslationKey> = {
  automatic: 'policy.restoreMode.automatic',
  request: 'policy.restoreMode.request',
  admin_approve: 'policy.restoreMode.admin_approve',
  phish_request_restore: 'policy.restoreMode.phish_request_restore',
  none: 'policy.restoreMode.none',
};

export const DIGEST_LABEL: Record<DigestSchedule, TranslationKey> = {
  off: 'policy.digest.off',
  daily: 'policy.digest.daily',
  weekly: 'policy.digest.weekly',
};

export const MATCH_LABEL: Record<OverrideMatch, TranslationKey> = {
  recipient: 'policy.match.recipient',
  domain: 'policy.match.domain',
  group: 'policy.match.group',
};
