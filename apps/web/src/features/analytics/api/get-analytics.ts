import { ANALYTICS_API, type AnalyticsQuery, analyticsDashboardSchema } from '@moat/contracts/analytics';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/analytics?from&to: the tenant's mail and detections over the range (admins). */
export function getAnalytics(range: AnalyticsQuery, signal?: AbortSignal) {
  return apiGet(ANALYTICS_API.dashboard, { query: { ...range }, signal, schema: analyticsDashboardSchema });
}

export function analyticsQueryOptions(range: AnalyticsQuery) {
  return queryOptions({
    queryKey: queryKeys.analytics.dashboard({ ...range }),
    queryFn: ({ signal }) => getAnalytics(range, signal),
    placeholderData: keepPreviousData,
  });
}

export function useAnalytics(range: AnalyticsQuery) {
  return useQuery(analyticsQueryOptions(range));
}
