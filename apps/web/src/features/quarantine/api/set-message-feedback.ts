import {
  feedbackResponseSchema,
  type MessageFeedback,
  QUARANTINE_ADMIN_API,
} from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/quarantine/messages/{id}/feedback {feedback}: 'is spam' / 'not spam' recorded on the message. */
export function setMessageFeedback({ id, feedback }: { id: string; feedback: MessageFeedback }) {
  return apiPost(QUARANTINE_ADMIN_API.messageFeedback(id), { feedback }, { schema: feedbackResponseSchema });
}

export function useSetMessageFeedback() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setMessageFeedback,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.quarantine.all() }),
  });
}
