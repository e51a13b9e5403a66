import {
  type MessageBulkBody,
  messageBulkResultSchema,
  QUARANTINE_ADMIN_API,
} from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

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
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.quarantine.all() });
      await queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() });
    },
  });
}
