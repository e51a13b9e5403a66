import type {
  DecisionAction,
  EventSeverity,
  EventType,
  EventVerdict,
  POLICY_SOURCES,
} from '@moat/contracts/security-events';
import type { TranslationKey } from '../../lib/i18n';

/** Words and colours of the Events screen's types, verdicts, severities and policy sources. */
export const EVENT_TYPE_LABEL: Record<EventType, TranslationKey> = {
  detection: 'events.type.detection',
  hold: 'events.type.hold',
  strip: 'events.type.strip',
  banner: 'events.type.banner',
  release: 'events.type.release',
  report: 'events.type.report',
  failure: 'events.type.failure',
  feedback: 'events.type.feedback',
  block: 'events.type.block',
  click: 'events.type.click',
};

export const EVENT_VERDICT_LABEL: Record<EventVerdict, TranslationKey> = {
  clean: 'events.verdict.clean',
  phishing: 'events.verdict.phishing',
  malware: 'events.verdict.malware',
  spam: 'events.verdict.spam',
  suspicious: 'events.verdict.suspicious',
};

export const EVENT_VERDICT_COLOR: Record<EventVerdict, string> = {
  clean: 'green',
  phishing: 'red',
  malware: 'grape',
  spam: 'gray',
  suspicious: 'orange',
};

export const EVENT_SEVERITY_LABEL: Record<EventSeverity, TranslationKey> = {
  info: 'events.severity.info',
  low: 'events.severity.low',
  medium: 'events.severity.medium',
  high: 'events.severity.high',
};

export const EVENT_SEVERITY_COLOR: Record<EventSeverity, string> = {
  info: 'gray',
  low: 'blue',
  medium: 'orange',
  high: 'red',
};

export const POLICY_SOURCE_LABEL: Record<(typeof POLICY_SOURCES)[number], TranslationKey> = {
  tenant_policy: 'events.source.tenant_policy',
  recipient_override: 'events.source.recipient_override',
  default_policy: 'events.source.default_policy',
  block_list: 'events.source.block_list',
  allow_list: 'events.source.allow_list',
  admin: 'events.source.admin',
  recipient: 'events.source.recipient',
  gateway: 'events.source.gateway',
  import: 'events.source.import',
};

/** The actions a policy decision names (the gateway's, and an admin's releases). */
export const DECISION_ACTION_LABEL: Record<DecisionAction, TranslationKey> = {
  deliver: 'events.action.deliver',
  deliver_banner: 'events.action.deliver_banner',
  strip: 'events.action.strip',
  quarantine: 'events.action.quarantine',
  quarantine_silent: 'events.action.quarantine_silent',
  release_email: 'events.action.release_email',
  release_original: 'events.action.release_original',
  report_phishing: 'events.action.report_phishing',
  report_safe: 'events.action.report_safe',
};

/**
 * A label of a closed list; a value the list does not know (an older or newer server's) is said
 * without its underscores rather than as an identifier.
 */
export function labelOf<K extends string>(
  labels: Record<K, TranslationKey>,
  value: string,
  t: (key: TranslationKey) => string,
): string {
  return Object.hasOwn(labels, value) ? t(labels[value as K]) : value.replace(/_/g, ' ');
}
