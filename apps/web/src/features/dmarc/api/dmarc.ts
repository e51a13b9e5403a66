import {
  DMARC_API,
  type IntakeOutcome,
  intakeResponseSchema,
  overviewResponseSchema,
  REVERSE_MAX,
  type RecordsQuery,
  recommendationsResponseSchema,
  recordsResponseSchema,
  reverseResponseSchema,
  type UploadResult,
  uploadResultSchema,
} from '@moat/contracts/dmarc';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost } from '../../../lib/http';
import { queryKeys, setFilters } from '../../../lib/query-keys';

/** GET /api/v1/dmarc/records: the sources the aggregate reports name (admins). */
export function useDmarcRecords(query: RecordsQuery) {
  const filters = setFilters(query);
  return useQuery({
    queryKey: queryKeys.dmarc.records(filters),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.records, {
        query: filters,
        signal,
        schema: recordsResponseSchema,
      }),
    placeholderData: keepPreviousData,
  });
}

/** POST /api/v1/dmarc/reports: one report file, as the reporter sent it. */
export function useUploadReport() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (file: File): Promise<UploadResult> =>
      apiPost(DMARC_API.reports, file, { schema: uploadResultSchema }),
    // A refused file is listed among the reports received too.
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.dmarc.all() }),
  });
}

/** GET /api/v1/dmarc/intake: what came to the report addresses and the uploads, newest first. */
export function useDmarcIntake(query: { outcome?: IntakeOutcome; limit: number; offset: number }) {
  const filters = setFilters(query);
  return useQuery({
    queryKey: queryKeys.dmarc.intake(filters),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.intake, { query: filters, signal, schema: intakeResponseSchema }),
    placeholderData: keepPreviousData,
  });
}

/** GET /api/v1/dmarc/overview: per domain over the last `days` days. */
export function useDmarcOverview(days: number) {
  return useQuery({
    queryKey: queryKeys.dmarc.overview(days),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.overview, { query: { days: String(days) }, signal, schema: overviewResponseSchema }),
    placeholderData: keepPreviousData,
  });
}

/** GET /api/v1/dmarc/recommendations: per domain, what to change next over the last `days` days. */
export function useDmarcRecommendations(days: number) {
  return useQuery({
    queryKey: queryKeys.dmarc.recommendations(days),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.recommendations, {
        query: { days: String(days) },
        signal,
        schema: recommendationsResponseSchema,
      }),
    placeholderData: keepPreviousData,
  });
}

/**
 * GET /api/v1/dmarc/reverse: the reverse names of the addresses shown (a name the server does not
 * know yet comes on a later look). Nothing is asked for no address.
 */
export function useReverseNames(ips: readonly string[]) {
  const wanted = [...new Set(ips)].slice(0, REVERSE_MAX).sort();
  return useQuery({
    queryKey: queryKeys.dmarc.reverse(wanted),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.reverse, {
        query: new URLSearchParams(wanted.map((ip) => ['ip', ip])),
        signal,
        schema: reverseResponseSchema,
      }),
    enabled: wanted.length > 0,
    staleTime: 10 * 60_000,
  });
}
