import { app, auth, emailActions, errors, validation } from '../locales/en-public.json';
import type { TranslationKey } from './i18n';

/**
 * The words of the pages the public bundle serves (the email-actions pages and the login page)
 * without i18next: `locales/en-public.json` (the namespaces `app`, `validation`, `emailActions`,
 * `auth` and `errors`) is all of the translations in that bundle. `{{name}}` is replaced by
 * `values.name`, as i18next does; an unknown key is shown as itself.
 */
const namespaces: Record<string, unknown> = { app, auth, emailActions, errors, validation };

export function t(key: TranslationKey, values: Record<string, string | number> = {}): string {
  let entry: unknown = namespaces;
  for (const part of key.split('.')) {
    entry =
      typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[part] : undefined;
  }
  if (typeof entry !== 'string') return key;
  return entry.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}
