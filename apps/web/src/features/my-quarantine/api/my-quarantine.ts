import {
  MY_QUARANTINE_API,
  myMessageDetailSchema,
  myMessageListSchema,
  myRestoreResponseSchema,
} from '@moat/contracts/my-quarantine';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';
import { useListQuery } from '../../../lib/use-list-query';

const at = (path: string, id: string) => path.replace(':id', encodeURIComponent(id));

/** GET /api/v1/my_quarantine?q&limit&offset: the signed-in user's own held mail. */
export function useMyMessages(filters: { q?: string; limit: number; offset: number }) {
  return useListQuery(queryKeys.myQuarantine.list, MY_QUARANTINE_API.messages, myMessageListSchema, filters);
}

export function useMyMessage(id: string) {
  return useQuery({
    queryKey: queryKeys.myQuarantine.message(id),
    queryFn: ({ signal }) =>
      apiGet(at(MY_QUARANTINE_API.message, id), { schema: myMessageDetailSchema, signal }),
  });
}

/** POST /api/v1/my_quarantine/{id}/restore: the list and the preview are read again after it. */
export function useRestoreMine() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, commentary }: { id: string; commentary: string }) =>
      apiPost(at(MY_QUARANTINE_API.restore, id), { commentary }, { schema: myRestoreResponseSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.myQuarantine.all() }),
  });
}
