import {
  type AlertSettings,
  alertSettingsSchema,
  USER_INTERACTION_API,
} from '@moat/contracts/phishing-reports';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** PUT /api/v1/alerts/settings: choose which alerts the admins get. */
export function saveAlertSettings(settings: AlertSettings) {
  return apiPut(USER_INTERACTION_API.alertSettings, settings, { schema: alertSettingsSchema });
}

export function useSaveAlertSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: saveAlertSettings,
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.userInteraction.alertSettings(), saved),
  });
}
