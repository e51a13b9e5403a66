import { QUARANTINE_ADMIN_API, restoreDecisionResponseSchema } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/** POST /api/v1/restore_requests/{id}/decline {reason}: the recipient is told by email. */
export function declineRestoreRequest({ id, reason }: { id: string; reason: string }) {
  return apiPost(
    QUARANTINE_ADMIN_API.restoreRequestAction(id, 'decline'),
    { reason },
    { schema: restoreDecisionResponseSchema },
  );
}

export function useDeclineRestoreRequest() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: declineRestoreRequest,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
