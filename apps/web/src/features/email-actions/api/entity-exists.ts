import { entityExistsResponseSchema, PUBLIC_ACTION_API } from '@moat/contracts/quarantine';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/{type}/{msg}/entity_exists: whether the held message can still be acted on. */
export function getEntityExists(type: string, msg: string, signal?: AbortSignal) {
  return apiGet(PUBLIC_ACTION_API.entityExists(type, msg), { signal, schema: entityExistsResponseSchema });
}

export function entityExistsQueryOptions(type: string, msg: string) {
  return queryOptions({
    queryKey: queryKeys.entityExists(type, msg),
    queryFn: ({ signal }) => getEntityExists(type, msg, signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useEntityExists(type: string, msg: string, enabled: boolean) {
  return useQuery({ ...entityExistsQueryOptions(type, msg), enabled });
}
