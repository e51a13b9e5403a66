/**
 * Looks a text up by its dotted key (`auth.login.title`) in nested translations, the way i18next
 * did for Moat before it was dropped (issue 14: its 20 KB were in every console page):
 * - `{{name}}` is replaced by `values.name` (no HTML escaping: React escapes what it renders); it
 *   stays as it is when that value is missing;
 * - with `count`, the English plural form comes first (`key_one`, `key_other`), then `key`;
 * - an unknown key is shown as itself.
 */
export type TranslateValues = Record<string, unknown> & { count?: number };

const PLURALS = new Intl.PluralRules('en');

function lookup(texts: unknown, key: string): string | undefined {
  let entry = texts;
  for (const part of key.split('.')) {
    entry =
      typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>)[part] : undefined;
  }
  return typeof entry === 'string' ? entry : undefined;
}

export function translate(texts: unknown, key: string, values: TranslateValues = {}): string {
  const text =
    (typeof values.count === 'number'
      ? lookup(texts, `${key}_${PLURALS.select(values.count)}`)
      : undefined) ?? lookup(texts, key);
  if (text === undefined) return key;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => {
    const value = values[name];
    return value === undefined ? whole : String(value);
  });
}
