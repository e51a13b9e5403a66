import { VIPS_API, vipListSchema } from '@moat/contracts/vips';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/vips: every protected person of the organisation, by name (admins). */
export function getVips(signal?: AbortSignal) {
  return apiGet(VIPS_API.entries, { signal, schema: vipListSchema });
}

export function vipsQueryOptions() {
  return queryOptions({ queryKey: queryKeys.vips.list(), queryFn: ({ signal }) => getVips(signal) });
}

export function useVips() {
  return useQuery(vipsQueryOptions());
}
