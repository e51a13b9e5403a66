import { ENGINE_NAMES, type EngineName } from '@moat/contracts/security-events';
import type { TFunction, TranslationKey } from './i18n';

/** The words of every engine and decider an event or finding names (a new one is a compile error until it has words). */
export const ENGINE_LABEL: Record<EngineName, TranslationKey> = {
  anti_malware: 'engines.anti_malware',
  anti_phishing: 'engines.anti_phishing',
  anti_spam: 'engines.anti_spam',
  moat_spam: 'engines.moat_spam',
  clamav: 'engines.clamav',
  rspamd: 'engines.rspamd',
  spamassassin: 'engines.spamassassin',
  dnsbl: 'engines.dnsbl',
  click_time: 'engines.click_time',
  dlp: 'engines.dlp',
  gateway: 'engines.gateway',
  policy: 'engines.policy',
  admin: 'engines.admin',
  recipient: 'engines.recipient',
  import: 'engines.import',
};

const isEngine = (name: string): name is EngineName => (ENGINE_NAMES as readonly string[]).includes(name);

/**
 * An engine's name in words; an event found by several (`anti_phishing,anti_spam`) names them all
 * ("Anti-Phishing and Anti-Spam"). A name this console does not know is said without its underscores.
 */
export function engineText(value: string, t: TFunction, locale?: string): string {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => (isEngine(name) ? t(ENGINE_LABEL[name]) : name.replace(/_/g, ' ')));
  if (names.length === 0) return '—';
  return new Intl.ListFormat(locale, { style: 'long', type: 'conjunction' }).format(names);
}
