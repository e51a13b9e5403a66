import { fillPath } from '@moat/contracts/api-paths';
import { learnResultSchema, SPAM_LEARNING_API, type SpamLabel } from '@moat/contracts/spam-learning';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST …/learn: an admin's "spam / not spam" for a message, taught to the anti-spam engine. */
export function learnMessage(by: { mailLogId: string } | { heldId: string }, label: SpamLabel) {
  const path =
    'mailLogId' in by
      ? fillPath(SPAM_LEARNING_API.byMailLog, { id: by.mailLogId })
      : fillPath(SPAM_LEARNING_API.byHeld, { id: by.heldId });
  return apiPost(path, { label }, { schema: learnResultSchema });
}

export function useLearnMessage(by: { mailLogId: string } | { heldId: string }) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (label: SpamLabel) => learnMessage(by, label),
    onSuccess: () => client.invalidateQueries({ queryKey: queryKeys.trace.all() }),
  });
}
