import { afterEach, describe, expect, it } from 'vitest';
import { THEME_STORAGE_KEY, themeModeStorageManager } from './theme';

describe('themeModeStorageManager', () => {
  afterEach(() => window.localStorage.clear());

  it('keeps the choice under moat.theme as "mixed" or "dark"', () => {
    const manager = themeModeStorageManager();
    manager.set('dark');
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('dark');
    expect(manager.get('light')).toBe('dark');
    manager.set('light');
    expect(window.localStorage.getItem(THEME_STORAGE_KEY)).toBe('mixed');
    expect(manager.get('dark')).toBe('light');
  });

  it('falls back to the default (mixed) when nothing or something unknown is stored', () => {
    const manager = themeModeStorageManager();
    expect(manager.get('light')).toBe('light');
    window.localStorage.setItem(THEME_STORAGE_KEY, 'purple');
    expect(manager.get('light')).toBe('light');
  });
});
