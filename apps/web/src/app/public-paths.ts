import { legacyTarget, ROUTES } from '@moat/contracts/routes';

/**
 * The hash paths the public pages' own bundle (`src/public-main.tsx`) serves: the email-actions
 * pages of SPEC §2.2 a recipient opens from a notification. Everything else is the console's.
 */
export const PUBLIC_PAGE_PATHS: readonly string[] = [
  ROUTES.emailActions.restoreEmail,
  ROUTES.emailActions.restoreAttachment,
  ROUTES.emailActions.restoreOriginal,
  ROUTES.emailActions.action,
];

/** The path and query of a hash location (`#/email-actions/action?type=a&id=b`). */
export function hashLocation(hash: string): { pathname: string; search: URLSearchParams } {
  const route = hash.replace(/^#/, '');
  const at = route.indexOf('?');
  const pathname = (at < 0 ? route : route.slice(0, at)) || '/';
  return { pathname, search: new URLSearchParams(at < 0 ? '' : route.slice(at + 1)) };
}

export function isPublicPage(hash: string): boolean {
  return PUBLIC_PAGE_PATHS.includes(hashLocation(hash).pathname);
}

/**
 * A legacy hash path of a public page (`#/email_restore.html?…`, SPEC §2.3) as the page's hash
 * (`#/email-actions/restore-email?…`), so that the boot script loads the public bundle for it at
 * once; null for any other hash.
 */
export function publicPageHashOfLegacy(hash: string): string | null {
  const { pathname, search } = hashLocation(hash);
  const target = legacyTarget(pathname);
  if (target === null || !PUBLIC_PAGE_PATHS.includes(target)) return null;
  const query = search.toString();
  return `#${target}${query ? `?${query}` : ''}`;
}
