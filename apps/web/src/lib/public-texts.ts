import { app, auth, emailActions, errors, validation } from '../locales/en-public.json';
import type { TranslationKey } from './i18n';
import { type TranslateValues, translate } from './translate';

/**
 * The words of the pages the public bundle serves (the email-actions pages and the login page):
 * `locales/en-public.json` (the namespaces `app`, `validation`, `emailActions`, `auth` and
 * `errors`) is all of the translations in that bundle. Looked up as the console does
 * (`translate`).
 */
const namespaces: Record<string, unknown> = { app, auth, emailActions, errors, validation };

export function t(key: TranslationKey, values?: TranslateValues): string {
  return translate(namespaces, key, values);
}
