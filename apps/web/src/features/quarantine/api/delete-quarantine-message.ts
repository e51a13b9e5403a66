import { deleteResponseSchema, QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/** DELETE /api/v1/quarantine/messages/{id}: nobody can restore the message any more. */
export function deleteQuarantineMessage(id: string) {
  return apiDelete(QUARANTINE_ADMIN_API.message(id), { schema: deleteResponseSchema });
}

export function useDeleteQuarantineMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteQuarantineMessage,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
