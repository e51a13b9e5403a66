import { type ReportsQuery, reportsListSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export type ReportFilters = ReportsQuery & { limit: number; offset: number };

/** GET /api/v1/phishing_reports?q&status&kind&from&to&sort&dir&limit&offset (admins). */
export function usePhishingReports(filters: ReportFilters) {
  return useListQuery(
    queryKeys.userInteraction.reports,
    USER_INTERACTION_API.reports,
    reportsListSchema,
    filters,
  );
}
