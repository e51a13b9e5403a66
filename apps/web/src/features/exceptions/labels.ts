import type { ExceptionKind, ExceptionList, StoredExceptionScope } from '@moat/contracts/exceptions';
import type { TranslationKey } from '../../lib/i18n';

/** The words of each list, kind and page (literal keys, so the translation check sees them). */
export const LIST_LABEL: Record<ExceptionList, TranslationKey> = {
  allow: 'exceptions.lists.allow',
  block: 'exceptions.lists.block',
};

export const KIND_LABEL: Record<ExceptionKind, TranslationKey> = {
  sender: 'exceptions.kinds.sender',
  domain: 'exceptions.kinds.domain',
  ip_range: 'exceptions.kinds.ip_range',
  url: 'exceptions.kinds.url',
  sha256: 'exceptions.kinds.sha256',
};

/** Every page an entry may be filed under, those of engines this edition lacks included (older entries). */
export const SCOPE_LABEL: Record<StoredExceptionScope, TranslationKey> = {
  all: 'exceptions.scopes.all',
  anti_phishing: 'exceptions.scopes.anti_phishing',
  anti_malware: 'exceptions.scopes.anti_malware',
  anomaly: 'exceptions.scopes.anomaly',
  click_time: 'exceptions.scopes.click_time',
  anti_spam: 'exceptions.scopes.anti_spam',
  url_reputation: 'exceptions.scopes.url_reputation',
  dlp: 'exceptions.scopes.dlp',
};

export const PLACEHOLDER: Record<ExceptionKind, TranslationKey> = {
  sender: 'exceptions.form.placeholders.sender',
  domain: 'exceptions.form.placeholders.domain',
  ip_range: 'exceptions.form.placeholders.ip_range',
  url: 'exceptions.form.placeholders.url',
  sha256: 'exceptions.form.placeholders.sha256',
};
