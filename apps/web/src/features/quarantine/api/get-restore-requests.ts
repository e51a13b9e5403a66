import type { RestoreStatus } from '@moat/contracts/quarantine';
import { QUARANTINE_ADMIN_API, restoreRequestListSchema } from '@moat/contracts/quarantine-admin';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

export interface RestoreRequestFilters {
  /** Searched in subject, sender and recipient; already trimmed, undefined when empty. */
  q?: string;
  status?: RestoreStatus;
  limit: number;
  offset: number;
}

/** GET /api/v1/restore_requests?q&status&limit&offset: the tenant's requests, newest first. */
export function useRestoreRequests(filters: RestoreRequestFilters) {
  return useListQuery(
    queryKeys.quarantine.restoreRequests,
    QUARANTINE_ADMIN_API.restoreRequests,
    restoreRequestListSchema,
    filters,
  );
}
