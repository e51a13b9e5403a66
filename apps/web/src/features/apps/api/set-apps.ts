import {
  type AppsResponse,
  type AppsUpdateBody,
  appsResponseSchema,
  CONSOLE_API,
} from '@moat/contracts/console';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** PUT /api/v1/apps: turn apps and engines of this edition on or off (admins); audited. */
export function setApps(body: AppsUpdateBody): Promise<AppsResponse> {
  return apiPut(CONSOLE_API.apps, body, { schema: appsResponseSchema });
}

/** The switch's call; the answer is the tenant's new states, which the navigation reads too. */
export function useSetApps() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setApps,
    onSuccess: (apps) => {
      queryClient.setQueryData(queryKeys.console.apps(), apps);
      void queryClient.invalidateQueries({ queryKey: queryKeys.console.environmentComponents() });
    },
  });
}
