import { type DkimResponse, DMARC_API, dkimResponseSchema } from '@moat/contracts/dmarc';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/dmarc/dkim: every domain's DKIM selectors and keys, looked up now (admins). */
export const getDkim = (signal?: AbortSignal): Promise<DkimResponse> =>
  apiGet(DMARC_API.dkim, { signal, schema: dkimResponseSchema });

export const dkimQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.dmarc.dkim(),
    queryFn: ({ signal }) => getDkim(signal),
    // A look-up of DNS now: asked again on "Check again", not on every focus.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  });

export function useDkim() {
  return useQuery(dkimQueryOptions());
}
