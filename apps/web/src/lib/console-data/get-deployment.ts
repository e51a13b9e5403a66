import { CONSOLE_API, deploymentConfigSchema } from '@moat/contracts/console';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const deploymentQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.deployment(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.deployment, { schema: deploymentConfigSchema, signal }),
    staleTime: 60_000,
  });
