import { fillPath } from '@moat/contracts/api-paths';
import { reportDecisionSchema, USER_INTERACTION_API } from '@moat/contracts/phishing-reports';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/phishing_reports/{id}/confirm {block_sender}: every copy hidden, the reporter told. */
export function confirmPhishingReport({ id, blockSender }: { id: string; blockSender: boolean }) {
  return apiPost(
    fillPath(USER_INTERACTION_API.confirm, { id }),
    { block_sender: blockSender },
    { schema: reportDecisionSchema },
  );
}

export function useConfirmPhishingReport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: confirmPhishingReport,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.userInteraction.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.quarantine.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
      ]),
  });
}
