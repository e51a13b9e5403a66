import { alertSettingsSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/alerts/settings: which alerts the admins get by email. */
export function getAlertSettings(signal?: AbortSignal) {
  return apiGet(USER_INTERACTION_API.alertSettings, { signal, schema: alertSettingsSchema });
}

export function alertSettingsQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.userInteraction.alertSettings(),
    queryFn: ({ signal }) => getAlertSettings(signal),
  });
}

export function useAlertSettings() {
  return useQuery(alertSettingsQueryOptions());
}
