import 'i18next';
import type enConsole from '../locales/en.json';
import type enPublic from '../locales/en-public.json';

declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'translation';
    resources: { translation: typeof enPublic & typeof enConsole };
  }
}
