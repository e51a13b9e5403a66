import { CONSOLE_API, type SearchQuery, searchResponseSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export function searchQueryOptions(params: SearchQuery) {
  return queryOptions({
    queryKey: queryKeys.console.search({ ...params }),
    queryFn: ({ signal }) =>
      apiGet(CONSOLE_API.search, { query: { nosystem: 1, ...params }, schema: searchResponseSchema, signal }),
    staleTime: 30_000,
  });
}
