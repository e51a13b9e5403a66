import { QUARANTINE_ADMIN_API, retentionSchema } from '@moat/contracts/quarantine-admin';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** PUT /api/v1/quarantine/retention {days}: 1 to 3650. */
export function setRetention(days: number) {
  return apiPut(QUARANTINE_ADMIN_API.retention, { days }, { schema: retentionSchema });
}

export function useSetRetention() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setRetention,
    onSuccess: (data) => queryClient.setQueryData(queryKeys.quarantine.retention(), data),
  });
}
