import { type CreateExceptionBody, EXCEPTIONS_API, exceptionEntrySchema } from '@moat/contracts/exceptions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/exceptions: a new allow or block entry; the gateway applies it to the next message. */
export function createException(body: CreateExceptionBody) {
  return apiPost(EXCEPTIONS_API.entries, body, { schema: exceptionEntrySchema });
}

export function useCreateException() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createException,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.exceptions.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
      ]),
  });
}
