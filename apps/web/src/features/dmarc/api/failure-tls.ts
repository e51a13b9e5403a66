import {
  DMARC_API,
  type FailureReportsQuery,
  failureReportsResponseSchema,
  type TlsReportsQuery,
  tlsReportsResponseSchema,
} from '@moat/contracts/dmarc';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys, setFilters } from '../../../lib/query-keys';

/** GET /api/v1/dmarc/failure-reports: the failure reports received, redacted, newest first (admins). */
export function useFailureReports(query: FailureReportsQuery) {
  const filters = setFilters(query);
  return useQuery({
    queryKey: queryKeys.dmarc.failureReports(filters),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.failureReports, { query: filters, signal, schema: failureReportsResponseSchema }),
    placeholderData: keepPreviousData,
  });
}

/** GET /api/v1/dmarc/tls-reports: per domain the TLS sessions that succeeded and failed, each report. */
export function useTlsReports(query: TlsReportsQuery) {
  const filters = setFilters(query);
  return useQuery({
    queryKey: queryKeys.dmarc.tlsReports(filters),
    queryFn: ({ signal }) =>
      apiGet(DMARC_API.tlsReports, { query: filters, signal, schema: tlsReportsResponseSchema }),
    placeholderData: keepPreviousData,
  });
}
