import {
  DMARC_API,
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
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.dmarc.all() }),
  });
}
