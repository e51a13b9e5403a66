/** The theme this browser chose, without Mantine (the public pages read it too). */
import { THEMES, type ThemeMode } from '@moat/contracts/constants';

/** Where the chosen theme lives until the server-side preference (user_preferences) exists. */
export const THEME_STORAGE_KEY = 'moat.theme';
export const DEFAULT_THEME_MODE: ThemeMode = 'mixed';

/** The "mixed" theme is Mantine's light colour scheme; "dark" is its dark one. */
export function colorSchemeOf(mode: ThemeMode): 'light' | 'dark' {
  return mode === 'dark' ? 'dark' : 'light';
}

export function isThemeMode(value: unknown): value is ThemeMode {
  return typeof value === 'string' && (THEMES as readonly string[]).includes(value);
}

export function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** The colour scheme of the theme this browser chose, or null when it chose none. */
export function storedColorScheme(key: string = THEME_STORAGE_KEY): 'light' | 'dark' | null {
  const stored = storage()?.getItem(key);
  return isThemeMode(stored) ? colorSchemeOf(stored) : null;
}
