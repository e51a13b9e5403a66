import { CONSOLE_API, versionResponseSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const versionQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.version(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.version, { schema: versionResponseSchema, signal }),
  });
