import {
  DMARC_API,
  type IntakeOutcome,
  intakeResponseSchema,
  type RecordsQuery,
  recordsResponseSchema,
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
