import type { QueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';

/**
 * After an admin's decision on held mail: the quarantine lists and previews, the Overview's
 * counts (held, pending, restored), the Events screen (a release is an event), the User
 * Interaction numbers and Modified Attachments' restore states, and the message's trace and
 * Mail Explorer row (its delivery) are stale.
 */
export function invalidateAfterDecision(queryClient: QueryClient) {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: queryKeys.quarantine.all() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.securityEvents.all() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.userInteraction.all() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.trace.all() }),
    queryClient.invalidateQueries({ queryKey: queryKeys.mailExplorer.all() }),
  ]);
}
