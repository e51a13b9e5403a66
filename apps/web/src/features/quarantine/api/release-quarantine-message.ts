import { QUARANTINE_ADMIN_API, releaseResponseSchema } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/** POST /api/v1/quarantine/messages/{id}/release: sends the held message to its recipient (once). */
export function releaseQuarantineMessage(id: string) {
  return apiPost(QUARANTINE_ADMIN_API.messageRelease(id), undefined, { schema: releaseResponseSchema });
}

export function useReleaseQuarantineMessage() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: releaseQuarantineMessage,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
