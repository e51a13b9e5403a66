import {
  SECURITY_EVENTS_API,
  type SecurityEventsQuery,
  securityEventListSchema,
} from '@moat/contracts/security-events';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

/** The search, the filters, the sort and the page of the Events list. */
export type SecurityEventFilters = SecurityEventsQuery & { limit: number; offset: number };

/** GET /api/v1/security_events: the tenant's events (a plain user's: those of their own mail). */
export function useSecurityEvents(filters: SecurityEventFilters) {
  return useListQuery(
    queryKeys.securityEvents.events,
    SECURITY_EVENTS_API.events,
    securityEventListSchema,
    filters,
  );
}
