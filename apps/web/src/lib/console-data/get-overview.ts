import { CONSOLE_API, overviewSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const overviewQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.overview(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.overview, { schema: overviewSchema, signal }),
  });
