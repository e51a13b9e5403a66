import { ROUTES } from '@moat/contracts/routes';

export const RETURN_URL_PARAM = 'returnUrl';

/**
 * The sign-in URL that brings the user back to `returnPath` afterwards (SPEC §2.5). Password-reset
 * URLs carry a one-time token and are never passed on.
 */
export function loginPath(returnPath?: string): string {
  if (!returnPath || returnPath === ROUTES.root || returnPath.startsWith(ROUTES.auth.resetPassword)) {
    return ROUTES.auth.login;
  }
  return `${ROUTES.auth.login}?${new URLSearchParams({ [RETURN_URL_PARAM]: returnPath })}`;
}

/**
 * Whether `value` is a path of this origin. Browsers drop tabs and line breaks from URLs
 * ("/\t/evil.example" becomes "//evil.example"), so control characters are refused, and the
 * value must resolve to this very origin.
 */
function isSameOriginPath(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (!value.startsWith('/') || /[\u0000-\u001f\u007f\\]/.test(value) || value.startsWith('//')) return false;
  try {
    const base = 'https://moat.invalid';
    return new URL(value, base).origin === base;
  } catch {
    return false;
  }
}

/**
 * `value` when it is a path inside this app (any route, the sign-in area included), else null:
 * never another origin ("//host", "/\host", "/\t/host", "https:…", "javascript:…").
 */
export function safeAppPath(value: string | null | undefined): string | null {
  return value && isSameOriginPath(value) ? value : null;
}

/**
 * A return URL the app may navigate to after sign-in: a path inside this app, never another
 * origin ("//host", "/\host", "/\t/host", "https:…") and never back into the sign-in area.
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (!value || !isSameOriginPath(value)) return null;
  if (value === ROUTES.auth.root || value.startsWith(`${ROUTES.auth.root}/`)) return null;
  return value;
}

/** Where to go after sign-in: a route of the hash router, or a full location change. */
export type ReturnTarget = { kind: 'route'; path: string } | { kind: 'document'; href: string };

/**
 * The saved return URL as a target (SPEC §4 "Login"): one containing '#' (a page outside the hash
 * router, or a hash URL) needs a full location change; it must still be a path of this origin.
 */
export function returnTarget(value: string | null | undefined): ReturnTarget | null {
  if (value?.includes('#')) {
    return isSameOriginPath(value) ? { kind: 'document', href: value } : null;
  }
  const path = safeReturnPath(value);
  return path ? { kind: 'route', path } : null;
}

/** Leaves the single-page app for `href` (a full location change). */
export function assignDocumentLocation(href: string): void {
  window.location.assign(href);
}

/** Loads the page afresh (the boot script then picks the bundle for its hash). */
export function reloadDocument(): void {
  window.location.reload();
}

/**
 * Leaves a public page for another route of the app (the console, the error 410 page): the hash
 * changes, and the boot script (`src/boot.ts`) loads the bundle that route needs. 'replace' keeps
 * the page that is left out of the history.
 */
export function openRoute(path: string, how: 'push' | 'replace' = 'replace'): void {
  if (how === 'replace') window.location.replace(`#${path}`);
  else window.location.hash = path;
}
