import type { RestoreStatus } from '@moat/contracts/quarantine';
import { QUARANTINE_ADMIN_API, restoreRequestListSchema } from '@moat/contracts/quarantine-admin';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export interface RestoreRequestFilters {
  /** Searched in subject, sender and recipient; already trimmed, undefined when empty. */
  q?: string;
  status?: RestoreStatus;
  limit: number;
  offset: number;
}

/** GET /api/v1/restore_requests?q&status&limit&offset: the tenant's requests, newest first. */
export function getRestoreRequests(filters: RestoreRequestFilters, signal?: AbortSignal) {
  return apiGet(QUARANTINE_ADMIN_API.restoreRequests, {
    query: { ...filters },
    signal,
    schema: restoreRequestListSchema,
  });
}

export function restoreRequestsQueryOptions(filters: RestoreRequestFilters) {
  return queryOptions({
    queryKey: queryKeys.quarantine.restoreRequests({ ...filters }),
    queryFn: ({ signal }) => getRestoreRequests(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useRestoreRequests(filters: RestoreRequestFilters) {
  return useQuery(restoreRequestsQueryOptions(filters));
}
