import {
  type CSSVariablesResolver,
  createTheme,
  type DrawerProps,
  type MantineColorScheme,
  type MantineColorSchemeManager,
  type MantineColorsTuple,
  type ModalProps,
} from '@mantine/core';
import type { ThemeMode } from '@moat/contracts/constants';
import { colorSchemeOf, isThemeMode, storage, storedColorScheme, THEME_STORAGE_KEY } from './theme-mode';

export { colorSchemeOf, DEFAULT_THEME_MODE, isThemeMode, THEME_STORAGE_KEY } from './theme-mode';

export function themeModeOf(scheme: MantineColorScheme): ThemeMode {
  return scheme === 'dark' ? 'dark' : 'mixed';
}

/** Keeps Mantine's colour scheme in localStorage as a theme mode ('mixed' or 'dark'). */
export function themeModeStorageManager(key: string = THEME_STORAGE_KEY): MantineColorSchemeManager {
  let listener: ((event: StorageEvent) => void) | undefined;
  return {
    get: (defaultValue) => {
      return storedColorScheme(key) ?? defaultValue;
    },
    set: (value) => {
      try {
        storage()?.setItem(key, themeModeOf(value));
      } catch {
        // Storage full or blocked: the choice lasts for this page only.
      }
    },
    subscribe: (onUpdate) => {
      listener = (event) => {
        if (event.key === key && isThemeMode(event.newValue)) onUpdate(colorSchemeOf(event.newValue));
      };
      window.addEventListener('storage', listener);
    },
    unsubscribe: () => {
      if (listener) window.removeEventListener('storage', listener);
      listener = undefined;
    },
    clear: () => storage()?.removeItem(key),
  };
}

const brand: MantineColorsTuple = [
  '#e7f5ff',
  '#d0ebff',
  '#a5d8ff',
  '#74c0fc',
  '#4dabf7',
  '#339af0',
  '#228be6',
  '#1c7ed6',
  '#1971c2',
  '#1864ab',
];

/**
 * Shade 8 keeps white text on filled buttons above 4.5:1 in both schemes. The checkpoint and
 * sonicwall accents are set in `styles/brand.css` on the body class of the public settings.
 */
export const appTheme = createTheme({
  primaryColor: 'brand',
  primaryShade: { light: 8, dark: 8 },
  colors: { brand },
  defaultRadius: 'md',
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  components: {
    // A dialog's (and a drawer's) header is a <header>, which would be a second banner landmark next to the top bar.
    // (A plain object, not Modal.extend: the theme must not pull the modal code into the first load.)
    Modal: {
      defaultProps: { attributes: { header: { role: 'presentation' } } } satisfies Partial<ModalProps>,
    },
    Drawer: {
      defaultProps: { attributes: { header: { role: 'presentation' } } } satisfies Partial<DrawerProps>,
    },
  },
});

/** Dimmed and error text darker (light) or lighter (dark) than Mantine's, to pass WCAG AA contrast. */
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
  },
  dark: {
    '--mantine-color-dimmed': 'var(--mantine-color-dark-1)',
    '--mantine-color-error': 'var(--mantine-color-red-4)',
  },
});
