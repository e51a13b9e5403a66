import { QUARANTINE_ADMIN_API, retryResponseSchema } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/** POST /api/v1/quarantine/messages/{id}/retry: the gateway processes a parked message again. */
export function retryQuarantineMessage(id: string) {
  return apiPost(QUARANTINE_ADMIN_API.messageRetry(id), undefined, { schema: retryResponseSchema });
}

export function useRetryQuarantineMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retryQuarantineMessage,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
