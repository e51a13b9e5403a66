import { act, renderHook, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';

/** A fresh copy of `lib/i18n` (the test set-up has loaded the areas' words into its own). */
async function freshI18n() {
  vi.resetModules();
  return import('./i18n');
}

describe('the areas’ words, loaded with the first area', () => {
  it('has the frame’s words at once and an area’s only after loading them', async () => {
    const fresh = await freshI18n();
    expect(fresh.i18n.t('shell.areas.dashboard')).not.toBe('shell.areas.dashboard');
    await fresh.loadAreaTexts();
    expect(fresh.i18n.t('accessBlocked.customerLocked.title')).toBe('Your account is locked');
  });

  it('loads them once, for all who ask', async () => {
    const fresh = await freshI18n();
    const first = fresh.loadAreaTexts();
    expect(fresh.loadAreaTexts()).toBe(first);
    const module = await fresh.withAreaTexts(async () => 'the area');
    expect(module).toBe('the area');
    expect(fresh.i18n.t('accessBlocked.requestSent.title')).toBe('Request sent');
  });

  it('shows a component again with the words when they come after it asked (no key left on screen)', async () => {
    const fresh = await freshI18n();
    const { result } = renderHook(() => fresh.useTranslation().t('accessBlocked.customerLocked.title'));
    // Asked before the words were here: the key, and the words are on their way.
    expect(result.current).toBe('accessBlocked.customerLocked.title');
    await act(() => fresh.loadAreaTexts());
    await waitFor(() => expect(result.current).toBe('Your account is locked'));
  });
});
