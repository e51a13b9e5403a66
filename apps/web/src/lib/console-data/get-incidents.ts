import { CONSOLE_API, incidentsResponseSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const incidentsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.incidents(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.incidents, { schema: incidentsResponseSchema, signal }),
    staleTime: 60_000,
    refetchInterval: 5 * 60_000,
  });
