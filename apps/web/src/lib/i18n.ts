import i18next, { type i18n as I18n, type ParseKeys } from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from '../locales/en.json';

export const DEFAULT_NAMESPACE = 'translation';
export const resources = { en: { [DEFAULT_NAMESPACE]: en } } as const;

/** A key of `locales/en.json`; a key that does not exist is a compile error. */
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
