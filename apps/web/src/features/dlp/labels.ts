import type { DlpAction, DlpDataType } from '@moat/contracts/dlp';
import type { OutboundHeldStatus } from '@moat/contracts/outbound';
import type { TranslationKey } from '../../lib/i18n';

/** The words of each data type, action and held status (literal keys, so the translation check sees them). */
export const TYPE_NAME: Record<DlpDataType, TranslationKey> = {
  payment_card: 'dlp.types.payment_card.name',
  iban: 'dlp.types.iban.name',
  us_ssn: 'dlp.types.us_ssn.name',
  uk_nino: 'dlp.types.uk_nino.name',
  ca_sin: 'dlp.types.ca_sin.name',
  es_dni: 'dlp.types.es_dni.name',
  fr_nir: 'dlp.types.fr_nir.name',
  api_key: 'dlp.types.api_key.name',
  private_key: 'dlp.types.private_key.name',
  file_type: 'dlp.types.file_type.name',
  encrypted_file: 'dlp.types.encrypted_file.name',
};

export const TYPE_WHAT: Record<DlpDataType, TranslationKey> = {
  payment_card: 'dlp.types.payment_card.what',
  iban: 'dlp.types.iban.what',
  us_ssn: 'dlp.types.us_ssn.what',
  uk_nino: 'dlp.types.uk_nino.what',
  ca_sin: 'dlp.types.ca_sin.what',
  es_dni: 'dlp.types.es_dni.what',
  fr_nir: 'dlp.types.fr_nir.what',
  api_key: 'dlp.types.api_key.what',
  private_key: 'dlp.types.private_key.what',
  file_type: 'dlp.types.file_type.what',
  encrypted_file: 'dlp.types.encrypted_file.what',
};

export const ACTION_LABEL: Record<DlpAction, TranslationKey> = {
  deliver: 'dlp.actions.deliver',
  notify: 'dlp.actions.notify',
  hold: 'dlp.actions.hold',
  refuse: 'dlp.actions.refuse',
};

export const ACTION_COLOR: Record<DlpAction, string> = {
  deliver: 'gray',
  notify: 'blue',
  hold: 'orange',
  refuse: 'red',
};

export const HELD_STATUS_LABEL: Record<OutboundHeldStatus, TranslationKey> = {
  held: 'dlp.held.status.held',
  released: 'dlp.held.status.released',
  declined: 'dlp.held.status.declined',
};
