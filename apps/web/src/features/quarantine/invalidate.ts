import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';

/**
 * After an admin's decision on held mail: the quarantine lists and previews, the Overview's
 * counts (held, pending, restored) and the Events screen (a release is an event) are stale.
 */
export function invalidateAfterDecision(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.quarantine.all() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.securityEvents.all() }),
  ]);
}
