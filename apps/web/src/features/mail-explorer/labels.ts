import type { DeliveryStatus, MAIL_ACTIONS, MAIL_VERDICTS } from '@moat/contracts/mail-explorer';
import type { TranslationKey } from '../../lib/i18n';

export type MailVerdict = (typeof MAIL_VERDICTS)[number];
export type MailAction = (typeof MAIL_ACTIONS)[number];

/** Words and colours of the gateway's verdicts and actions. */
export const MAIL_VERDICT_LABEL: Record<MailVerdict, TranslationKey> = {
  clean: 'mailExplorer.verdict.clean',
  phishing: 'mailExplorer.verdict.phishing',
  malware: 'mailExplorer.verdict.malware',
  spam: 'mailExplorer.verdict.spam',
  suspicious: 'mailExplorer.verdict.suspicious',
};

export const MAIL_VERDICT_COLOR: Record<MailVerdict, string> = {
  clean: 'green',
  phishing: 'red',
  malware: 'grape',
  spam: 'gray',
  suspicious: 'orange',
};

export const MAIL_ACTION_LABEL: Record<MailAction, TranslationKey> = {
  delivered: 'mailExplorer.action.delivered',
  delivered_banner: 'mailExplorer.action.delivered_banner',
  attachments_removed: 'mailExplorer.action.attachments_removed',
  quarantined: 'mailExplorer.action.quarantined',
  quarantined_silent: 'mailExplorer.action.quarantined_silent',
  failed: 'mailExplorer.action.failed',
};

/** How a result reads: a pass, a failure, or neither. */
export type AuthTone = 'good' | 'bad' | 'neutral';

/** SPF, DKIM and DMARC results (RFC 8601); a result not listed here is shown as the server wrote it. */
const AUTH_RESULTS = new Map<string, { label: TranslationKey; color: string; tone: AuthTone }>([
  ['pass', { label: 'mailExplorer.auth.pass', color: 'green', tone: 'good' }],
  ['fail', { label: 'mailExplorer.auth.fail', color: 'red', tone: 'bad' }],
  ['softfail', { label: 'mailExplorer.auth.softfail', color: 'orange', tone: 'bad' }],
  ['neutral', { label: 'mailExplorer.auth.neutral', color: 'gray', tone: 'neutral' }],
  ['none', { label: 'mailExplorer.auth.none', color: 'gray', tone: 'neutral' }],
  ['policy', { label: 'mailExplorer.auth.policy', color: 'orange', tone: 'bad' }],
  ['temperror', { label: 'mailExplorer.auth.temperror', color: 'yellow', tone: 'neutral' }],
  ['permerror', { label: 'mailExplorer.auth.permerror', color: 'red', tone: 'bad' }],
]);

export function authResultOf(result: string): {
  label: TranslationKey | null;
  color: string;
  tone: AuthTone;
} {
  return AUTH_RESULTS.get(result.toLowerCase()) ?? { label: null, color: 'gray', tone: 'neutral' };
}

/** What became of the delivery (the outbox), in words and colours. */
export const DELIVERY_LABEL: Record<DeliveryStatus, TranslationKey> = {
  queued: 'mailExplorer.delivery.queued',
  sent: 'mailExplorer.delivery.sent',
  deferred: 'mailExplorer.delivery.deferred',
  failed: 'mailExplorer.delivery.failed',
  none: 'mailExplorer.delivery.none',
};

export const DELIVERY_COLOR: Record<DeliveryStatus, string> = {
  queued: 'blue',
  sent: 'green',
  deferred: 'orange',
  failed: 'red',
  none: 'gray',
};
