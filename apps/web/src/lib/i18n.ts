import i18next, { type i18n as I18n, type ParseKeys } from 'i18next';
import { initReactI18next } from 'react-i18next';
import enConsole from '../locales/en.json';
import enPublic from '../locales/en-public.json';

/**
 * English: the words the public bundle shares with the console (`en-public.json`: app, validation,
 * emailActions, auth, errors; the public bundle reads only that file) and the console's own.
 */
export const en = { ...enPublic, ...enConsole };

export const DEFAULT_NAMESPACE = 'translation';
export const resources = { en: { [DEFAULT_NAMESPACE]: en } } as const;

/** A key of `locales/en-public.json` or `locales/en.json`; a key that does not exist is a compile error. */
export type TranslationKey = ParseKeys;

export function createI18n(): I18n {
  const instance = i18next.createInstance();
  void instance.use(initReactI18next).init({
    lng: 'en',
    fallbackLng: 'en',
    supportedLngs: ['en'],
    defaultNS: DEFAULT_NAMESPACE,
    resources,
    initAsync: false,
    interpolation: { escapeValue: false },
  });
  return instance;
}
