import { SETTINGS_API, type SettingsUpdate, settingsSchema } from '@moat/contracts/settings';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/settings (admins; a demo deployment's users read). */
export const settingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.settings(),
    queryFn: ({ signal }) => apiGet(SETTINGS_API.settings, { schema: settingsSchema, signal }),
  });

/** PUT /api/v1/settings: only what changed; answers the settings as stored. */
export function useSaveSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SettingsUpdate) => apiPut(SETTINGS_API.settings, body, { schema: settingsSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.settings(), saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.policy.current() });
    },
  });
}
