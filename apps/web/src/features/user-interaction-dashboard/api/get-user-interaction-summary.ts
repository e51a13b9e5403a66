import { summarySchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/user_interaction/summary?from&to: per-day counts, what waits, time to decision. */
export function getUserInteractionSummary(from: string, to: string, signal?: AbortSignal) {
  return apiGet(USER_INTERACTION_API.summary, { query: { from, to }, signal, schema: summarySchema });
}

export function userInteractionSummaryQueryOptions(from: string, to: string) {
  return queryOptions({
    queryKey: queryKeys.userInteraction.summary(from, to),
    queryFn: ({ signal }) => getUserInteractionSummary(from, to, signal),
  });
}

export function useUserInteractionSummary(from: string, to: string) {
  return useQuery(userInteractionSummaryQueryOptions(from, to));
}
