import { DMARC_API, type SpfResponse, spfResponseSchema } from '@moat/contracts/dmarc';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/dmarc/spf: every domain's SPF record, looked up now (admins). */
export const getSpf = (signal?: AbortSignal): Promise<SpfResponse> =>
  apiGet(DMARC_API.spf, { signal, schema: spfResponseSchema });

export const spfQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.dmarc.spf(),
    queryFn: ({ signal }) => getSpf(signal),
    // A look-up of DNS now: asked again on "Check again", not on every focus.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  });

export function useSpf() {
  return useQuery(spfQueryOptions());
}
