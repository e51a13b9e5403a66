import type { RestoreMode } from '@moat/contracts/quarantine';
import { ROUTES } from '@moat/contracts/routes';

/** The recipient's links to the public pages: the opaque `msg` and the mode the page starts in. */
export function restoreLinks(
  publicUrl: string,
  m: { saasType: string; publicId: string },
  mode: RestoreMode,
) {
  const query = new URLSearchParams({ type: m.saasType, msg: m.publicId, mode }).toString();
  return {
    restoreEmail: `${publicUrl}/#${ROUTES.emailActions.restoreEmail}?${query}`,
    restoreOriginal: `${publicUrl}/#${ROUTES.emailActions.restoreOriginal}?${query}`,
  };
}
