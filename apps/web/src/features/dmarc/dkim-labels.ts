import type {
  DkimPlanStatus,
  DkimProblemCode,
  DkimRotateReason,
  DkimSeenIn,
  DkimStepCode,
} from '@moat/contracts/dmarc';
import type { TranslationKey } from '../../lib/i18n';

/** Each problem's words; a new problem is a compile error until it has some. */
export const DKIM_PROBLEM_TEXT: Record<DkimProblemCode, TranslationKey> = {
  no_record: 'dmarc.dkim.problem.no_record',
  lookup_failed: 'dmarc.dkim.problem.lookup_failed',
  syntax: 'dmarc.dkim.problem.syntax',
  bad_version: 'dmarc.dkim.problem.bad_version',
  duplicate_tag: 'dmarc.dkim.problem.duplicate_tag',
  no_key_tag: 'dmarc.dkim.problem.no_key_tag',
  unknown_key_type: 'dmarc.dkim.problem.unknown_key_type',
  bad_key: 'dmarc.dkim.problem.bad_key',
  key_type_mismatch: 'dmarc.dkim.problem.key_type_mismatch',
  revoked: 'dmarc.dkim.problem.revoked',
  revoked_in_use: 'dmarc.dkim.problem.revoked_in_use',
  rsa_too_short: 'dmarc.dkim.problem.rsa_too_short',
  rsa_weak: 'dmarc.dkim.problem.rsa_weak',
  pkcs1_key: 'dmarc.dkim.problem.pkcs1_key',
  sha1_only: 'dmarc.dkim.problem.sha1_only',
  not_for_email: 'dmarc.dkim.problem.not_for_email',
  testing: 'dmarc.dkim.problem.testing',
  multiple_records: 'dmarc.dkim.problem.multiple_records',
  split_wrong: 'dmarc.dkim.problem.split_wrong',
  no_key: 'dmarc.dkim.problem.no_key',
  ed25519_only: 'dmarc.dkim.problem.ed25519_only',
  failing: 'dmarc.dkim.problem.failing',
};

export const DKIM_SEEN_TEXT: Record<DkimSeenIn, TranslationKey> = {
  reports: 'dmarc.dkim.seenIn.reports',
  mail: 'dmarc.dkim.seenIn.mail',
  dns: 'dmarc.dkim.seenIn.dns',
};

export const DKIM_STEP_TEXT: Record<DkimStepCode, TranslationKey> = {
  publish: 'dmarc.dkim.step.publish',
  switch: 'dmarc.dkim.step.switch',
  keep: 'dmarc.dkim.step.keep',
  revoke: 'dmarc.dkim.step.revoke',
  remove: 'dmarc.dkim.step.remove',
};

export const DKIM_REASON_TEXT: Record<DkimRotateReason, TranslationKey> = {
  too_short: 'dmarc.dkim.reason.too_short',
  weak: 'dmarc.dkim.reason.weak',
  old: 'dmarc.dkim.reason.old',
  unreadable: 'dmarc.dkim.reason.unreadable',
};

export const DKIM_PLAN_TEXT: Record<DkimPlanStatus, TranslationKey> = {
  publish: 'dmarc.dkim.plan.status.publish',
  rotate: 'dmarc.dkim.plan.status.rotate',
  none_due: 'dmarc.dkim.plan.status.none_due',
  unknown: 'dmarc.dkim.plan.status.unknown',
};
