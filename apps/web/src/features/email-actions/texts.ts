import type { TranslationKey } from '../../lib/i18n';
import { app, emailActions, validation } from '../../locales/en-public.json';
import type { FlowMessage } from './flow-types';

/**
 * The words of the public pages without i18next: `locales/en-public.json` (the namespaces `app`,
 * `validation` and `emailActions`) is all of the translations in their bundle. `{{name}}` is replaced
 * by `values.name`, as i18next does; an unknown key is shown as itself.
 */
const namespaces: Record<string, unknown> = { app, emailActions, validation };

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

/** The words of a flow message: its translation, or the server's own text. */
export function flowMessageText(message: FlowMessage): string {
  return 'text' in message ? message.text : t(message.key, message.values);
}
