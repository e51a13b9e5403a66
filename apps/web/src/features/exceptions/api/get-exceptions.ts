import { EXCEPTIONS_API, type ExceptionQuery, exceptionListSchema } from '@moat/contracts/exceptions';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export type ExceptionFilters = ExceptionQuery & { limit: number; offset: number };

/** GET /api/v1/exceptions?list&kind&scope&include_expired&q&sort&dir&limit&offset (admins). */
export function getExceptions(filters: ExceptionFilters, signal?: AbortSignal) {
  return apiGet(EXCEPTIONS_API.entries, { query: { ...filters }, signal, schema: exceptionListSchema });
}

export function exceptionsQueryOptions(filters: ExceptionFilters) {
  return queryOptions({
    queryKey: queryKeys.exceptions.list({ ...filters }),
    queryFn: ({ signal }) => getExceptions(filters, signal),
    placeholderData: keepPreviousData,
  });
}

export function useExceptions(filters: ExceptionFilters) {
  return useQuery(exceptionsQueryOptions(filters));
}
