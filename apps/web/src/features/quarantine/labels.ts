import type { RestoreStatus, Verdict } from '@moat/contracts/quarantine';
import type { BulkSkipReason, MessageFeedback, MessageSummary } from '@moat/contracts/quarantine-admin';
import type { TranslationKey } from '../../lib/i18n';

type MessageState = MessageSummary['state'];
type AttachmentState = MessageSummary['attachments'][number]['state'];

/** Words and colours of the quarantine's enumerations. */
export const RESTORE_STATUS_LABEL: Record<RestoreStatus, TranslationKey> = {
  quarantined: 'quarantine.status.quarantined',
  requested: 'quarantine.status.requested',
  approved: 'quarantine.status.approved',
  declined: 'quarantine.status.declined',
  restored: 'quarantine.status.restored',
};

export const RESTORE_STATUS_COLOR: Record<RestoreStatus, string> = {
  quarantined: 'gray',
  requested: 'yellow',
  approved: 'blue',
  declined: 'red',
  restored: 'green',
};

export const VERDICT_LABEL: Record<Verdict, TranslationKey> = {
  phishing: 'quarantine.verdict.phishing',
  malware: 'quarantine.verdict.malware',
  spam: 'quarantine.verdict.spam',
  suspicious: 'quarantine.verdict.suspicious',
};

export const VERDICT_COLOR: Record<Verdict, string> = {
  phishing: 'red',
  malware: 'grape',
  spam: 'gray',
  suspicious: 'orange',
};

export const MESSAGE_STATE_LABEL: Record<MessageState, TranslationKey> = {
  quarantined: 'quarantine.state.quarantined',
  attachments_removed: 'quarantine.state.attachments_removed',
  restored: 'quarantine.state.restored',
  deleted: 'quarantine.state.deleted',
};

export const ATTACHMENT_STATE_LABEL: Record<AttachmentState, TranslationKey> = {
  delivered: 'quarantine.attachmentState.delivered',
  removed: 'quarantine.attachmentState.removed',
  cleaned: 'quarantine.attachmentState.cleaned',
};

/** Why a message of a bulk action was left as it was. */
export const BULK_SKIP_REASON_LABEL: Record<BulkSkipReason, TranslationKey> = {
  already_released: 'quarantine.bulk.reason.already_released',
  already_deleted: 'quarantine.bulk.reason.already_deleted',
  malware_confirmation_required: 'quarantine.bulk.reason.malware_confirmation_required',
};

/** An admin's feedback on a message. */
export const FEEDBACK_LABEL: Record<MessageFeedback, TranslationKey> = {
  spam: 'quarantine.feedback.value.spam',
  not_spam: 'quarantine.feedback.value.not_spam',
};
