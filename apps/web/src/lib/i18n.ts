import enConsole from '../locales/en.json';
import enPublic from '../locales/en-public.json';
import { type TranslateValues, translate } from './translate';

/**
 * English: the words the public bundle shares with the console (`en-public.json`: app, validation,
 * emailActions, auth, errors; the public bundle reads only that file) and the console's own.
 */
export const en = { ...enPublic, ...enConsole };

/** The dotted paths of a nested translation object's texts. */
type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];
type PluralForm = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';
type WithoutPluralForm<K extends string> = K extends `${infer Base}_${PluralForm}` ? Base : K;
type TextPath = Leaves<typeof en>;

/**
 * A key of `locales/en-public.json` or `locales/en.json`; a plural's keys (`…_one`, `…_other`)
 * also without their form, which `count` picks. A key that does not exist is a compile error.
 */
export type TranslationKey = TextPath | WithoutPluralForm<TextPath>;

export type TFunction = (key: TranslationKey, values?: TranslateValues) => string;

/** The console's words (`translate`): English only. */
export const i18n = {
  language: 'en',
  t: ((key, values) => translate(en, key, values)) as TFunction,
} as const;

const translation = { t: i18n.t, i18n };

/** The console's words in a component (shaped as react-i18next's hook, which this replaces). */
export function useTranslation() {
  return translation;
}
