import { ANALYTICS_API, type AnalyticsQuery, analyticsDashboardSchema } from '@moat/contracts/analytics';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

/** GET /api/v1/analytics?from&to: the tenant's mail and detections over the range (admins). */
export function useAnalytics(filters: AnalyticsQuery) {
  return useListQuery(
    queryKeys.analytics.dashboard,
    ANALYTICS_API.dashboard,
    analyticsDashboardSchema,
    filters,
  );
}
