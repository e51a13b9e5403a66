/**
 * Troubleshooting mode (SPEC §2.3): `?debug=1` switches it on and `?debug=0` off, for this browser
 * until switched again. Navigation rules read it (entries shown "on debug", SPEC §2.4).
 */
export const DEBUG_PARAM = 'debug';
const STORAGE_KEY = 'moat.debug';

const listeners = new Set<() => void>();

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Whether troubleshooting mode is on in this browser. */
export function isDebugMode(): boolean {
  return storage()?.getItem(STORAGE_KEY) === '1';
}

export function setDebugMode(on: boolean): void {
  if (on === isDebugMode()) return;
  const store = storage();
  if (on) store?.setItem(STORAGE_KEY, '1');
  else store?.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener();
}

/**
 * Applies a `debug` query parameter: '1' switches the mode on, '0' off; any other value or none
 * leaves it as it is. Returns whether the parameter was there.
 */
export function applyDebugParam(search: URLSearchParams): boolean {
  const value = search.get(DEBUG_PARAM);
  if (value === '1') setDebugMode(true);
  else if (value === '0') setDebugMode(false);
  return value === '1' || value === '0';
}

export function subscribeDebugMode(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}
