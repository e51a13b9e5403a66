import { useSyncExternalStore } from 'react';
import { isDebugMode, subscribeDebugMode } from './debug-mode';

/** `isDebugMode()` for components: re-renders when the mode is switched. */
export function useDebugMode(): boolean {
  return useSyncExternalStore(subscribeDebugMode, isDebugMode, () => false);
}
