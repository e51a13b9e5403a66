import { appsResponseSchema, CONSOLE_API } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const appsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.apps(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.apps, { schema: appsResponseSchema, signal }),
    staleTime: 60_000,
  });
