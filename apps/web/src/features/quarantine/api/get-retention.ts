import { QUARANTINE_ADMIN_API, retentionSchema } from '@moat/contracts/quarantine-admin';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/quarantine/retention: days held mail is kept before the purge job deletes it. */
export function getRetention(signal?: AbortSignal) {
  return apiGet(QUARANTINE_ADMIN_API.retention, { signal, schema: retentionSchema });
}

export function retentionQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.quarantine.retention(),
    queryFn: ({ signal }) => getRetention(signal),
  });
}

export function useRetention() {
  return useQuery(retentionQueryOptions());
}
