import {
  type MessageBulkBody,
  messageBulkResultSchema,
  QUARANTINE_ADMIN_API,
} from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { invalidateAfterDecision } from '../invalidate';

/**
 * POST /api/v1/quarantine/messages/bulk {ids, action: release|delete, to?, confirm_malware?}:
 * one outcome per id (released, deleted, skipped with a reason, not found).
 */
export function bulkQuarantineMessages(body: MessageBulkBody) {
  return apiPost(QUARANTINE_ADMIN_API.messagesBulk, body, { schema: messageBulkResultSchema });
}

export function useBulkQuarantineMessages() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: bulkQuarantineMessages,
    // A release or a deletion changes the same lists and counts as a decision on a request.
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
