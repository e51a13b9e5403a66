import {
  type bulkBodySchema,
  bulkResultSchema,
  QUARANTINE_ADMIN_API,
} from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import type { InputOf } from '../../../lib/schema-types';
import { invalidateAfterDecision } from '../invalidate';

export type BulkDecision = InputOf<typeof bulkBodySchema>;

/** POST /api/v1/restore_requests/bulk {ids, action, reason?}: one result (status or error) per id. */
export function decideRestoreRequests(body: BulkDecision) {
  return apiPost(QUARANTINE_ADMIN_API.restoreRequestsBulk, body, { schema: bulkResultSchema });
}

export function useDecideRestoreRequests() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: decideRestoreRequests,
    onSettled: () => invalidateAfterDecision(queryClient),
  });
}
