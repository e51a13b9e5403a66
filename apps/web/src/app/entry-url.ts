import { legacyTarget } from '@moat/contracts/routes';

/**
 * Links in old notification mails point at real paths (`/email_action.html?type=…&id=…`). When
 * the page was opened that way, the hash route to use instead; null when nothing is to change.
 */
export function hashUrlForLegacyEntry(
  location: Pick<Location, 'pathname' | 'search' | 'hash'>,
): string | null {
  if (location.hash || location.pathname === '/') return null;
  const target = legacyTarget(location.pathname);
  return target === null ? null : `/#${target}${location.search}`;
}
