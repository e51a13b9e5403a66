import { QUARANTINE_ADMIN_API, restoreDecisionResponseSchema } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/** POST /api/v1/restore_requests/{id}/approve: releases the message to its recipient. */
export function approveRestoreRequest(id: string) {
  return apiPost(QUARANTINE_ADMIN_API.restoreRequestAction(id, 'approve'), undefined, {
    schema: restoreDecisionResponseSchema,
  });
}

export function useApproveRestoreRequest() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: approveRestoreRequest,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
