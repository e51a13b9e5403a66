import { CLICK_TIME_API, type ClickTimeSettings, clickTimeSettingsSchema } from '@moat/contracts/click-time';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/click-time/settings: which mail has its links rewritten, and whether a warning may be passed. */
export function useClickTimeSettings() {
  return useQuery({
    queryKey: queryKeys.clickTime.settings(),
    queryFn: ({ signal }) => apiGet(CLICK_TIME_API.settings, { signal, schema: clickTimeSettingsSchema }),
  });
}

/** PUT /api/v1/click-time/settings. */
export function useSaveClickTimeSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (settings: ClickTimeSettings) =>
      apiPut(CLICK_TIME_API.settings, settings, { schema: clickTimeSettingsSchema }),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.clickTime.settings(), saved),
  });
}
