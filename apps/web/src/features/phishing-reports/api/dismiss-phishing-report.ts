import { fillPath } from '@moat/contracts/api-paths';
import { reportDecisionSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/phishing_reports/{id}/dismiss: marked safe, the reporter told. */
export function dismissPhishingReport({ id }: { id: string }) {
  return apiPost(fillPath(USER_INTERACTION_API.dismiss, { id }), undefined, { schema: reportDecisionSchema });
}

export function useDismissPhishingReport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: dismissPhishingReport,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.userInteraction.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
      ]),
  });
}
