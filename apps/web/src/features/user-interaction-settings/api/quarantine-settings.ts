import {
  type QuarantineSettingsInput,
  quarantineSettingsSchema,
  USER_INTERACTION_SETTINGS_API,
} from '@moat/contracts/user-interaction-settings';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/user_interaction/quarantine_settings (admins). */
export const quarantineSettingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.interactionSettings.quarantine(),
    queryFn: ({ signal }) =>
      apiGet(USER_INTERACTION_SETTINGS_API.quarantine, { schema: quarantineSettingsSchema, signal }),
  });
export const useQuarantineSettings = () => useQuery(quarantineSettingsQueryOptions());

/** PUT /api/v1/user_interaction/quarantine_settings: everything at once; audited. */
export function useSaveQuarantineSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: QuarantineSettingsInput) =>
      apiPut(USER_INTERACTION_SETTINGS_API.quarantine, input, { schema: quarantineSettingsSchema }),
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.interactionSettings.quarantine(), saved);
      // The Policy screen shows the restore modes set here.
      void queryClient.invalidateQueries({ queryKey: queryKeys.policy.current() });
    },
  });
}
