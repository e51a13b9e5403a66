import { blockSenderResponseSchema, QUARANTINE_ADMIN_API } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/quarantine/messages/{id}/block_sender {scope}: the sender or its domain joins the block list. */
export function blockSender({ id, scope }: { id: string; scope: 'sender' | 'domain' }) {
  return apiPost(
    QUARANTINE_ADMIN_API.messageBlockSender(id),
    { scope },
    { schema: blockSenderResponseSchema },
  );
}

export function useBlockSender() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: blockSender,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
  });
}
