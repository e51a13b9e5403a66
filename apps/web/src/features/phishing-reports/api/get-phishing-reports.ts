import { type ReportsQuery, reportsListSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export type ReportFilters = ReportsQuery & { limit: number; offset: number };

/** GET /api/v1/phishing_reports?q&status&kind&from&to&sort&dir&limit&offset (admins). */
export function getPhishingReports(filters: ReportFilters, signal?: AbortSignal) {
  return apiGet(USER_INTERACTION_API.reports, { query: { ...filters }, signal, schema: reportsListSchema });
}

export function phishingReportsQueryOptions(filters: ReportFilters) {
  return queryOptions({
    queryKey: queryKeys.userInteraction.reports({ ...filters }),
    queryFn: ({ signal }) => getPhishingReports(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function usePhishingReports(filters: ReportFilters) {
  return useQuery(phishingReportsQueryOptions(filters));
}
