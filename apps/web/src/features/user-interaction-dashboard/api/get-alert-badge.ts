import { alertBadgeSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/alerts/badge: open reports and waiting restore requests (admins). */
export function getAlertBadge(signal?: AbortSignal) {
  return apiGet(USER_INTERACTION_API.alertBadge, { signal, schema: alertBadgeSchema });
}

export function alertBadgeQueryOptions(enabled: boolean) {
  return queryOptions({
    queryKey: queryKeys.userInteraction.badge(),
    queryFn: ({ signal }) => getAlertBadge(signal),
    enabled,
    refetchInterval: 60_000,
  });
}

/** The badge of the User Interaction entry; only admins ask (others would get 403). */
export function useAlertBadge(enabled: boolean) {
  return useQuery(alertBadgeQueryOptions(enabled));
}
