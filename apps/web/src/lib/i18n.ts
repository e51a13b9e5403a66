import { useSyncExternalStore } from 'react';
import enConsole from '../locales/en.json';
import type enAreas from '../locales/en-areas.json';
import enPublic from '../locales/en-public.json';
import { type TranslateValues, translate } from './translate';

/**
 * English, in three files (issue 14: translations split per area):
 * - `en-public.json`: the words the public bundle shares with the console (app, validation,
 *   emailActions, auth, errors; the public bundle reads only that file);
 * - `en.json`: the console's words for its frame (shell, navigation, banners, search, the version
 *   check, global errors) and the overview, which the signed-in dashboard shows first;
 * - `en-areas.json`: the words of every other area, loaded with the first of them
 *   (`loadAreaTexts`, which the routes and screens await before they show).
 * `i18n.test.ts` checks that the frame and the overview use only the first two.
 */
export type Texts = typeof enPublic & typeof enConsole & typeof enAreas;

let texts: Record<string, unknown> = { ...enPublic, ...enConsole };
let loadingAreas: Promise<void> | null = null;
let areasLoaded = false;
/** Bumped when the area texts arrive: the components that asked for words show them again. */
let textsVersion = 0;
const listeners = new Set<() => void>();

/** Loads the areas' words once; a failed load is tried again on the next call. */
export function loadAreaTexts(): Promise<void> {
  loadingAreas ??= import('../locales/en-areas.json').then(
    (module) => {
      texts = { ...texts, ...module.default };
      areasLoaded = true;
      textsVersion += 1;
      for (const listener of listeners) listener();
    },
    (error: unknown) => {
      loadingAreas = null;
      throw error;
    },
  );
  return loadingAreas;
}

/**
 * Loads a lazy module of an area together with the areas' words, so that it shows with its words
 * at once (a route, a screen, a dialog). `areaTexts: false` for a module that shows only the words
 * the console starts with (the shell, the area frame, the overview; `i18n.test.ts` checks them).
 */
export async function withAreaTexts<M>(load: () => Promise<M>, areaTexts = true): Promise<M> {
  if (!areaTexts) return load();
  const [module] = await Promise.all([load(), loadAreaTexts()]);
  return module;
}

/** The dotted paths of a nested translation object's texts. */
type Leaves<T, Prefix extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${Prefix}${K}` : Leaves<T[K], `${Prefix}${K}.`>;
}[keyof T & string];
type PluralForm = 'zero' | 'one' | 'two' | 'few' | 'many' | 'other';
type WithoutPluralForm<K extends string> = K extends `${infer Base}_${PluralForm}` ? Base : K;
type TextPath = Leaves<Texts>;

/**
 * A key of the English files; a plural's keys (`…_one`, `…_other`) also without their form,
 * which `count` picks. A key that does not exist is a compile error.
 */
export type TranslationKey = TextPath | WithoutPluralForm<TextPath>;

export type TFunction = (key: TranslationKey, values?: TranslateValues) => string;

function t(key: TranslationKey, values?: TranslateValues): string {
  const text = translate(texts, key, values);
  // A word of an area asked for before its texts came (a path that did not await them): they
  // are loaded now, and the components using words show again when they are here.
  if (text === key && !areasLoaded) loadAreaTexts().catch(() => undefined);
  return text;
}

/** The console's words (`translate`): English only. */
export const i18n = { language: 'en', t } as const;

const translation = { t, i18n };
const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};
const currentVersion = () => textsVersion;

/** The console's words in a component (shaped as react-i18next's hook, which this replaces). */
export function useTranslation() {
  useSyncExternalStore(subscribe, currentVersion, currentVersion);
  return translation;
}
