import { keepPreviousData, type QueryKey, useQuery } from '@tanstack/react-query';
import { apiGet } from './http';
import type { ListKeyFilters } from './query-keys';

/**
 * A GET whose query string is a list's (or a dashboard's) filters: cached under `key(filters)`,
 * its answer checked against `schema`, and the previous answer kept on screen while a new filter
 * loads, so a table does not flash empty between pages.
 */
export function useListQuery<T, F extends object>(
  key: (filters: ListKeyFilters) => QueryKey,
  path: string,
  schema: { parse: (data: unknown) => T },
  filters: F,
) {
  const query = { ...filters } as ListKeyFilters;
  return useQuery({
    queryKey: key(query),
    queryFn: ({ signal }) => apiGet(path, { query, signal, schema }),
    placeholderData: keepPreviousData,
  });
}
