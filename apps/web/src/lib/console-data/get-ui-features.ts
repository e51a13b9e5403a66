/** The signed-in console's tenant and service data (SPEC §2.4, §4, §7), shared by the shell's features: one file per call. */
import { CONSOLE_API } from '@moat/contracts/console';
import { featureFlagsSchema } from '@moat/contracts/features';
import { queryOptions } from '@tanstack/react-query';
import { apiGet } from '../http';
import { queryKeys } from '../query-keys';

export const uiFeaturesQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.console.features(),
    queryFn: ({ signal }) => apiGet(CONSOLE_API.uiFeatures, { schema: featureFlagsSchema, signal }),
    staleTime: 60_000,
  });
