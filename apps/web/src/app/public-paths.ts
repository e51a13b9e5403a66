import { legacyTarget, ROUTES } from '@moat/contracts/routes';
import { RETURN_URL_PARAM } from '../lib/return-url';
import { ENTRY_PARAMS } from './entry-location';

/**
 * The hash paths the public pages' own bundle (`src/public-main.tsx`) serves: the email-actions
 * pages of SPEC §2.2 a recipient opens from a notification. It also serves the login page when
 * it is opened (`isPublicLoginPage`). Everything else is the console's.
 */
export const PUBLIC_PAGE_PATHS: readonly string[] = [
  ROUTES.emailActions.restoreEmail,
  ROUTES.emailActions.restoreAttachment,
  ROUTES.emailActions.restoreOriginal,
  ROUTES.emailActions.action,
  ROUTES.emailActions.link,
];

/** The path and query of a hash location (`#/email-actions/action?type=a&id=b`). */
export function hashLocation(hash: string): { pathname: string; search: URLSearchParams } {
  const route = hash.replace(/^#/, '');
  const at = route.indexOf('?');
  const pathname = (at < 0 ? route : route.slice(0, at)) || '/';
  return { pathname, search: new URLSearchParams(at < 0 ? '' : route.slice(at + 1)) };
}

/**
 * Whether the public pages' bundle serves this hash: one of their paths, exactly, with none of
 * the console's entry parameters (a sign-in token, `debug`, `route`). Other spellings and links
 * with those parameters go to the console, whose router hands the page back (`router.tsx`).
 */
export function isPublicPage(hash: string): boolean {
  const { pathname, search } = hashLocation(hash);
  return PUBLIC_PAGE_PATHS.includes(pathname) && !ENTRY_PARAMS.some((name) => search.has(name));
}

/**
 * Whether the public bundle serves this hash as the login page: `/auth/login` opened with no
 * parameter but `returnUrl`. A sign-in the console is to go on with (`sign-in-handover.ts`), the
 * console's own hand-back (`signIn=console`) and entry parameters go to the console.
 */
export function isPublicLoginPage(hash: string, signInWaiting: boolean): boolean {
  const { pathname, search } = hashLocation(hash);
  return (
    pathname === ROUTES.auth.login &&
    !signInWaiting &&
    [...search.keys()].every((name) => name === RETURN_URL_PARAM)
  );
}

/** Which bundle serves this hash: the public one (email-actions pages, the login page) or the console. */
export function bundleOf(hash: string, signInWaiting: boolean): 'public' | 'console' {
  return isPublicPage(hash) || isPublicLoginPage(hash, signInWaiting) ? 'public' : 'console';
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

/**
 * Opens a public page from the console, which has acted on the entry parameters already (they are
 * left out, so the boot script cannot send the page back): the console is on this very document,
 * so it loads afresh with the page's hash, and the boot script picks the public bundle.
 */
export function openPublicPage(pathname: string, search: URLSearchParams): void {
  const query = new URLSearchParams(search);
  for (const name of ENTRY_PARAMS) query.delete(name);
  const rest = query.toString();
  window.history.replaceState(null, '', `#${pathname}${rest ? `?${rest}` : ''}`);
  window.location.reload();
}
