import { RESTORE_POLL_INTERVAL_MS } from '@moat/contracts/constants';
import { PUBLIC_ACTION_API, type RestoreStatus, restoreResponseSchema } from '@moat/contracts/quarantine';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet, isApiError } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** States after which the status no longer changes: polling stops. */
export const FINAL_RESTORE_STATUSES: readonly RestoreStatus[] = ['restored', 'declined'];

/** GET /api/v1/{type}/restore/{msg}/status: where the restore of an email stands. */
export function getRestoreStatus(type: string, msg: string, signal?: AbortSignal) {
  return apiGet(PUBLIC_ACTION_API.restoreStatus(type, msg), { signal, schema: restoreResponseSchema });
}

/** Polled every RESTORE_POLL_INTERVAL_MS (SPEC §9) until a final state, or a 404 (message gone). */
export function restoreStatusQueryOptions(type: string, msg: string) {
  return queryOptions({
    queryKey: queryKeys.restoreStatus(type, msg),
    queryFn: ({ signal }) => getRestoreStatus(type, msg, signal),
    staleTime: RESTORE_POLL_INTERVAL_MS,
    retry: false,
    refetchInterval: (query) => {
      const status = query.state.data?.status;
      if (status && FINAL_RESTORE_STATUSES.includes(status)) return false;
      const { error } = query.state;
      if (isApiError(error) && error.status === 404) return false;
      return RESTORE_POLL_INTERVAL_MS;
    },
    refetchIntervalInBackground: true,
  });
}

export function useRestoreStatus(type: string, msg: string) {
  return useQuery(restoreStatusQueryOptions(type, msg));
}
