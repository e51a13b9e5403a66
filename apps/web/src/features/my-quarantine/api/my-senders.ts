import {
  type AddMySenderBody,
  deleteMySenderResultSchema,
  MY_SENDERS_API,
  mySenderListSchema,
  mySenderSchema,
} from '@moat/contracts/my-senders';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiDelete, apiGet, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/my_senders: the signed-in user's own allowed and blocked senders. */
export function getMySenders(signal?: AbortSignal) {
  return apiGet(MY_SENDERS_API.entries, { schema: mySenderListSchema, signal });
}

export const mySendersQueryOptions = () =>
  queryOptions({ queryKey: queryKeys.myQuarantine.senders(), queryFn: ({ signal }) => getMySenders(signal) });

export function useMySenders() {
  return useQuery(mySendersQueryOptions());
}

/** POST /api/v1/my_senders: allow or block an address or domain (a value already there moves list). */
export function addMySender(body: AddMySenderBody) {
  return apiPost(MY_SENDERS_API.entries, body, { schema: mySenderSchema });
}

export function useAddMySender() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addMySender,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.myQuarantine.senders() }),
  });
}

/** DELETE /api/v1/my_senders/{id}. */
export function deleteMySender(id: string) {
  return apiDelete(MY_SENDERS_API.entry.replace(':id', encodeURIComponent(id)), {
    schema: deleteMySenderResultSchema,
  });
}

export function useDeleteMySender() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteMySender,
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.myQuarantine.senders() }),
  });
}
