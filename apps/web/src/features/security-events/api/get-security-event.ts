import { fillPath } from '@moat/contracts/api-paths';
import { SECURITY_EVENTS_API, securityEventDetailSchema } from '@moat/contracts/security-events';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/security_events/{id}: the event's findings, policy decision and the message's story. */
export function getSecurityEvent(id: string, signal?: AbortSignal) {
  return apiGet(fillPath(SECURITY_EVENTS_API.event, { id }), { signal, schema: securityEventDetailSchema });
}

export function securityEventQueryOptions(id: string) {
  return queryOptions({
    queryKey: queryKeys.securityEvents.event(id),
    queryFn: ({ signal }) => getSecurityEvent(id, signal),
  });
}

export function useSecurityEvent(id: string) {
  return useQuery(securityEventQueryOptions(id));
}
