import {
  type ReportSettingsInput,
  reportSettingsSchema,
  USER_INTERACTION_SETTINGS_API,
} from '@moat/contracts/user-interaction-settings';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/user_interaction/report_settings (admins). */
export const reportSettingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.interactionSettings.reports(),
    queryFn: ({ signal }) =>
      apiGet(USER_INTERACTION_SETTINGS_API.reports, { schema: reportSettingsSchema, signal }),
  });
export const useReportSettings = () => useQuery(reportSettingsQueryOptions());

/** PUT /api/v1/user_interaction/report_settings: everything at once; audited. */
export function useSaveReportSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ReportSettingsInput) =>
      apiPut(USER_INTERACTION_SETTINGS_API.reports, input, { schema: reportSettingsSchema }),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.interactionSettings.reports(), saved),
  });
}
