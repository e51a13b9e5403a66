import type { CurrentUser } from '@moat/contracts/current-user';
import { ROUTES } from '@moat/contracts/routes';
import type { QueryClient } from '@tanstack/react-query';
import { type LoaderFunctionArgs, redirect } from 'react-router';
import { getAuthSession } from '../features/auth/api/get-auth-session';
import { currentUserQueryOptions } from '../features/session/api/get-current-user';
import { isApiError } from '../lib/http';
import { loginPath } from '../lib/return-url';

/** The signed-in user, or a redirect to sign-in (with returnUrl) when the server says there is none. */
async function currentUserOrLogin(queryClient: QueryClient, request: Request): Promise<CurrentUser> {
  try {
    return await queryClient.fetchQuery(currentUserQueryOptions());
  } catch (error) {
    if (isApiError(error) && (error.status === 401 || error.status === 403)) {
      const url = new URL(request.url);
      throw redirect(loginPath(`${url.pathname}${url.search}`));
    }
    throw error;
  }
}

/** Main area (SPEC §2.5): a session and an account that is not locked. */
export function requireActiveUser(queryClient: QueryClient) {
  return async ({ request }: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await currentUserOrLogin(queryClient, request);
    if (user.locked_status.should_lock) throw redirect(ROUTES.accessBlocked.customerLocked);
    return user;
  };
}

/** Locked area (access-blocked): a session whose account is locked; others go to the overview. */
export function requireLockedUser(queryClient: QueryClient) {
  return async ({ request }: LoaderFunctionArgs): Promise<CurrentUser> => {
    const user = await currentUserOrLogin(queryClient, request);
    if (!user.locked_status.should_lock) throw redirect(ROUTES.dashboard);
    return user;
  };
}

/**
 * Sign-in area (SPEC §2.1, §2.5): login and forgot-password are only for a browser without a
 * session; one with a session goes to the overview. When the check fails, the page shows.
 */
export async function redirectIfSignedIn({ request }: LoaderFunctionArgs): Promise<null> {
  const session = await getAuthSession(request.signal).catch(() => null);
  if (session?.authenticated) throw redirect(ROUTES.dashboard);
  return null;
}
