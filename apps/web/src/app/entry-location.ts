/**
 * The entry URL read before any bundle loads (`src/boot.ts`): legacy paths, the `route`
 * parameter and sign-in tokens turned into the hash route. No framework: the boot script needs it.
 */
import { STARTUP_TOKEN_PARAMS } from '@moat/contracts/constants';
import { legacyTarget } from '@moat/contracts/routes';
import { DEBUG_PARAM } from '../lib/debug-mode';
import { safeAppPath } from '../lib/return-url';

/** SPEC §2.3: an entry URL may carry `route`, a base64-encoded, URL-encoded target path. */
export const ROUTE_PARAM = 'route';

/** Query parameters of a real URL (`/?accessToken=…#/x`) that the hash route must see. */
const CARRIED_PARAMS: readonly string[] = [...STARTUP_TOKEN_PARAMS, DEBUG_PARAM];

/**
 * Parameters of the hash route the console's entry middleware acts on (sign-in tokens, `debug`,
 * `route`): a public page's link that carries one opens in the console, which uses it up.
 */
export const ENTRY_PARAMS: readonly string[] = [...CARRIED_PARAMS, ROUTE_PARAM];

function decodeBase64(value: string): string | null {
  const standard = value.trim().replace(/-/g, '+').replace(/_/g, '/');
  const padded = standard.padEnd(standard.length + ((4 - (standard.length % 4)) % 4), '=');
  try {
    const bytes = Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The route a `route` parameter asks for, or null when it is not a path inside this app. A leading
 * '/#' is dropped ('/#/policy' is '/policy'); legacy '/#!/…' paths go where SPEC §2.3 sends them
 * ('/#!/authorize-error…' becomes the error 403 page).
 */
export function decodeRouteTarget(value: string | null | undefined): string | null {
  if (!value) return null;
  const decoded = decodeBase64(value);
  if (decoded === null) return null;
  let path: string;
  try {
    path = decodeURIComponent(decoded);
  } catch {
    return null;
  }
  const hashed = /^\/?#(.*)$/s.exec(path);
  if (hashed) {
    path = hashed[1] ?? '';
    if (path.startsWith('!')) {
      const [pathname = '', ...query] = path.split('?');
      const target = legacyTarget(pathname);
      if (target === null) return null;
      path = query.length ? `${target}?${query.join('?')}` : target;
    }
  }
  if (path === '') path = '/';
  return safeAppPath(path);
}

export function withParams(path: string, params: URLSearchParams): string {
  const search = params.toString();
  if (!search) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${search}`;
}

/**
 * The URL to replace the one the page was opened with, or null when nothing is to change:
 * - a `route` parameter becomes the hash route it names (refused when not a path of this app);
 * - a real legacy path (`/email_action.html?type=…`, links in old mails) becomes its hash route;
 * - sign-in tokens and `debug` in the real query move into the hash route, where the start-up
 *   middleware and the troubleshooting switch read them.
 * Other parameters of the real query go along.
 */
export function hashUrlForLegacyEntry(
  location: Pick<Location, 'pathname' | 'search' | 'hash'>,
): string | null {
  const params = new URLSearchParams(location.search);
  if (params.has(ROUTE_PARAM)) {
    const target = decodeRouteTarget(params.get(ROUTE_PARAM));
    params.delete(ROUTE_PARAM);
    const current = location.hash.replace(/^#/, '') || '/';
    return `/#${withParams(target ?? current, params)}`;
  }
  if (!location.hash && location.pathname !== '/') {
    const target = legacyTarget(location.pathname);
    return target === null ? null : `/#${target}${location.search}`;
  }
  if (CARRIED_PARAMS.some((name) => params.has(name))) {
    const current = location.hash.replace(/^#/, '') || '/';
    return `/#${withParams(current, params)}`;
  }
  return null;
}
