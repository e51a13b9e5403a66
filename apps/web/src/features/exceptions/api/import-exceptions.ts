import { EXCEPTIONS_API, importExceptionsResultSchema } from '@moat/contracts/exceptions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/exceptions/import: a CSV file's text; all rows or none (the errors list every bad line). */
export function importExceptions(csv: string) {
  return apiPost(EXCEPTIONS_API.import, { csv }, { schema: importExceptionsResultSchema });
}

export function useImportExceptions() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: importExceptions,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.exceptions.all() }),
        queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() }),
      ]),
  });
}
