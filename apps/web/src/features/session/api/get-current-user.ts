import { API } from '@moat/contracts/api-paths';
import { CURRENT_USER_POLL_INTERVAL_MS, CURRENT_USER_RETRY_DELAY_MS } from '@moat/contracts/constants';
import { type CurrentUser, currentUserSchema } from '@moat/contracts/current-user';
import { type QueryClient, queryOptions } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export function getCurrentUser(signal?: AbortSignal): Promise<CurrentUser> {
  return apiGet(API.currentUser, { schema: currentUserSchema, signal });
}

export function currentUserQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.currentUser(),
    queryFn: ({ signal }) => getCurrentUser(signal),
    staleTime: 60_000,
  });
}

/** The signed-in user, re-polled every CURRENT_USER_POLL_INTERVAL_MS (SPEC §4 "Start-up") while observed. */
export function currentUserPollingOptions() {
  return queryOptions({
    ...currentUserQueryOptions(),
    refetchInterval: CURRENT_USER_POLL_INTERVAL_MS,
    refetchIntervalInBackground: true,
  });
}

function delay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/**
 * The user of a session just opened (SPEC §4 "Login"): fetched fresh, and tried again every
 * CURRENT_USER_RETRY_DELAY_MS until it answers or `signal` aborts.
 */
export async function fetchCurrentUserWithRetry(
  queryClient: QueryClient,
  signal: AbortSignal,
): Promise<CurrentUser> {
  for (;;) {
    try {
      return await queryClient.fetchQuery({ ...currentUserQueryOptions(), staleTime: 0, retry: false });
    } catch (error) {
      if (signal.aborted) throw error;
      await delay(CURRENT_USER_RETRY_DELAY_MS, signal);
    }
  }
}
