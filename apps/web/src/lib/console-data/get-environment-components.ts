import { CONSOLE_API, environmentComponentsSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const environmentComponentsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.environmentComponents(),
    queryFn: ({ signal }) =>
      apiGet(CONSOLE_API.environmentComponents, { schema: environmentComponentsSchema, signal }),
  });
