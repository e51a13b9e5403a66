import { CONSOLE_API, learningModeSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const learningModeQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.learningMode(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.learningMode, { schema: learningModeSchema, signal }),
    staleTime: 5 * 60_000,
  });
