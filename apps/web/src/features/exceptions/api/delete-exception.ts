import { deleteExceptionResultSchema, EXCEPTIONS_API } from '@moat/contracts/exceptions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** DELETE /api/v1/exceptions/{id}. */
export function deleteException(id: string) {
  return apiDelete(EXCEPTIONS_API.entry.replace(':id', encodeURIComponent(id)), {
    schema: deleteExceptionResultSchema,
  });
}

export function useDeleteException() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteException,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.exceptions.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
      ]),
  });
}
