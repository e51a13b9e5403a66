import {
  SECURITY_EVENTS_API,
  type SecurityEventsQuery,
  securityEventListSchema,
} from '@moat/contracts/security-events';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** The search, the filters, the sort and the page of the Events list. */
export type SecurityEventFilters = SecurityEventsQuery & { limit: number; offset: number };

/** GET /api/v1/security_events: the tenant's events (a plain user's: those of their own mail). */
export function getSecurityEvents(filters: SecurityEventFilters, signal?: AbortSignal) {
  return apiGet(SECURITY_EVENTS_API.events, {
    query: { ...filters },
    signal,
    schema: securityEventListSchema,
  });
}

export function securityEventsQueryOptions(filters: SecurityEventFilters) {
  return queryOptions({
    queryKey: queryKeys.securityEvents.events({ ...filters }),
    queryFn: ({ signal }) => getSecurityEvents(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useSecurityEvents(filters: SecurityEventFilters) {
  return useQuery(securityEventsQueryOptions(filters));
}
