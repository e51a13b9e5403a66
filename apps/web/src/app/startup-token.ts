import { STARTUP_TOKEN_PARAMS } from '@moat/contracts/auth';
import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import type { QueryClient } from '@tanstack/react-query';
import { type MiddlewareFunction, replace } from 'react-router';
import { portalLogin, portalSignInOf } from '../features/auth/api/portal-login';
import { currentUserQueryOptions } from '../features/session/api/get-current-user';

/** Where a successful token sign-in lands (SPEC §4 "Start-up"): onboarding, the root's dashboard, or the route asked for. */
export function startupTarget(user: CurrentUser, url: URL): string {
  if (user.on_boarding_required) return ROUTES.onboarding.root;
  if (url.pathname === ROUTES.root) return ROUTES.dashboard;
  const rest = new URLSearchParams(url.search);
  for (const param of STARTUP_TOKEN_PARAMS) rest.delete(param);
  const search = rest.toString();
  return `${url.pathname}${search ? `?${search}` : ''}`;
}

/**
 * Root middleware (it runs before every loader, so no guard sees the page first): a sign-in
 * token in the route's query (`#/dashboard?accessToken=…`, `?firstTimeToken=…`,
 * `?authtoken=…&domain=…`, `?spogSrc=…`) is exchanged for a session through its brand's call,
 * the current user is fetched, and the browser goes on without the token; a refused token goes
 * to error/401. Both replace the history entry, so the token does not stay in the URL.
 */
export function startupTokenMiddleware(queryClient: QueryClient): MiddlewareFunction {
  return async ({ request }, next) => {
    const url = new URL(request.url);
    const signIn = portalSignInOf(url.searchParams);
    if (signIn === null) return next();
    let user: CurrentUser;
    try {
      if (signIn === 'invalid') throw new Error('malformed sign-in token');
      await portalLogin(signIn);
      user = await queryClient.fetchQuery({ ...currentUserQueryOptions(), staleTime: 0 });
    } catch {
      throw replace(ROUTES.errors.unauthorized);
    }
    throw replace(startupTarget(user, url));
  };
}
