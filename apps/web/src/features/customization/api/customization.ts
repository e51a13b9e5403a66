import type { ThemeMode } from '@moat/contracts/constants';
import { CUSTOMIZATION_API, customizationSchema, type LogoUpload } from '@moat/contracts/customization';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete, apiGet, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

export const customizationQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.customization(),
    queryFn: ({ signal }) => apiGet(CUSTOMIZATION_API.customization, { schema: customizationSchema, signal }),
  });

/** Every change answers the customization as stored; the deployment (its default theme) is read again. */
function useCustomizationMutation<I>(call: (input: I) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (input: I) => customizationSchema.parse(await call(input)),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.customization(), saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.console.deployment() });
    },
  });
}

export const useUploadLogo = () =>
  useCustomizationMutation((body: LogoUpload) =>
    apiPut(CUSTOMIZATION_API.logo, body, { schema: customizationSchema }),
  );

export const useClearLogo = () =>
  useCustomizationMutation(() => apiDelete(CUSTOMIZATION_API.logo, { schema: customizationSchema }));

export const useSetDefaultTheme = () =>
  useCustomizationMutation((mode: ThemeMode) =>
    apiPut(
      CUSTOMIZATION_API.customization,
      { default_application_mode: mode },
      { schema: customizationSchema },
    ),
  );
