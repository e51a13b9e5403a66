import { useEffect } from 'react';
import { startParentPortalReporter } from './parent-portal';

/** Runs the parent-portal reporter (SPEC §4 "Parent portal message") while mounted. */
export function useParentPortal(): void {
  useEffect(() => startParentPortalReporter({ win: window, parent: window.parent }), []);
}
