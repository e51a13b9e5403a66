import type { SpfChangeCode, SpfFailure, SpfNodeStatus, SpfProblemCode } from '@moat/contracts/dmarc';
import type { TranslationKey } from '../../lib/i18n';

/** Each problem's words; a new problem is a compile error until it has some. */
export const SPF_PROBLEM_TEXT: Record<SpfProblemCode, TranslationKey> = {
  no_record: 'dmarc.spf.problem.no_record',
  multiple_records: 'dmarc.spf.problem.multiple_records',
  too_many_lookups: 'dmarc.spf.problem.too_many_lookups',
  too_many_void_lookups: 'dmarc.spf.problem.too_many_void_lookups',
  pass_all: 'dmarc.spf.problem.pass_all',
  neutral_all: 'dmarc.spf.problem.neutral_all',
  no_all: 'dmarc.spf.problem.no_all',
  ptr: 'dmarc.spf.problem.ptr',
  unknown_term: 'dmarc.spf.problem.unknown_term',
  bad_ip4: 'dmarc.spf.problem.bad_ip4',
  bad_ip6: 'dmarc.spf.problem.bad_ip6',
  bad_domain: 'dmarc.spf.problem.bad_domain',
  duplicate_modifier: 'dmarc.spf.problem.duplicate_modifier',
  include_no_record: 'dmarc.spf.problem.include_no_record',
  include_failed: 'dmarc.spf.problem.include_failed',
  term_failed: 'dmarc.spf.problem.term_failed',
  void_term: 'dmarc.spf.problem.void_term',
  too_many_mx: 'dmarc.spf.problem.too_many_mx',
  cycle: 'dmarc.spf.problem.cycle',
  too_deep: 'dmarc.spf.problem.too_deep',
  redirect_ignored: 'dmarc.spf.problem.redirect_ignored',
  after_all: 'dmarc.spf.problem.after_all',
  record_too_long: 'dmarc.spf.problem.record_too_long',
  macro: 'dmarc.spf.problem.macro',
  incomplete: 'dmarc.spf.problem.incomplete',
};

/** Each change's words. */
export const SPF_CHANGE_TEXT: Record<SpfChangeCode, TranslationKey> = {
  merged: 'dmarc.spf.change.merged',
  removed_invalid: 'dmarc.spf.change.removed_invalid',
  removed_ptr: 'dmarc.spf.change.removed_ptr',
  removed_duplicate: 'dmarc.spf.change.removed_duplicate',
  removed_include_no_record: 'dmarc.spf.change.removed_include_no_record',
  removed_cycle: 'dmarc.spf.change.removed_cycle',
  removed_void: 'dmarc.spf.change.removed_void',
  removed_redirect: 'dmarc.spf.change.removed_redirect',
  moved_all: 'dmarc.spf.change.moved_all',
  pass_all_to_fail: 'dmarc.spf.change.pass_all_to_fail',
  neutral_to_softfail: 'dmarc.spf.change.neutral_to_softfail',
  added_all: 'dmarc.spf.change.added_all',
  flattened: 'dmarc.spf.change.flattened',
  still_too_many_lookups: 'dmarc.spf.change.still_too_many_lookups',
  split_strings: 'dmarc.spf.change.split_strings',
};

export const SPF_FAILURE_TEXT: Record<SpfFailure, TranslationKey> = {
  timeout: 'dmarc.spf.failure.timeout',
  servfail: 'dmarc.spf.failure.servfail',
  refused: 'dmarc.spf.failure.refused',
  unreachable: 'dmarc.spf.failure.unreachable',
  failed: 'dmarc.spf.failure.failed',
};

export const SPF_NODE_STATUS_TEXT: Record<SpfNodeStatus, TranslationKey> = {
  ok: 'dmarc.spf.nodeStatus.ok',
  no_record: 'dmarc.spf.nodeStatus.no_record',
  multiple_records: 'dmarc.spf.nodeStatus.multiple_records',
  failed: 'dmarc.spf.nodeStatus.failed',
  cycle: 'dmarc.spf.nodeStatus.cycle',
  too_deep: 'dmarc.spf.nodeStatus.too_deep',
  not_checked: 'dmarc.spf.nodeStatus.not_checked',
};
