import { fillPath } from '@moat/contracts/api-paths';
import {
  DKIM_SIGNING_API,
  type DkimAlgorithm,
  type DkimSigningDomain,
  type DkimSigningResponse,
  dkimSigningChangeResponseSchema,
  dkimSigningResponseSchema,
} from '@moat/contracts/dkim-signing';
import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/dkim-signing: each domain's own signing keys, whether DNS shows them, signing on or off. */
export const getDkimSigning = (signal?: AbortSignal): Promise<DkimSigningResponse> =>
  apiGet(DKIM_SIGNING_API.list, { signal, schema: dkimSigningResponseSchema });

export const dkimSigningQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.dmarc.dkimSigning(),
    queryFn: ({ signal }) => getDkimSigning(signal),
    // Asks DNS about every key: again on "Check again" or after a change, not on every focus.
    staleTime: 60_000,
    refetchOnWindowFocus: false,
  });

export function useDkimSigning() {
  return useQuery(dkimSigningQueryOptions());
}

export type DkimSigningChange =
  | { kind: 'create'; domain: string; algorithm: DkimAlgorithm }
  | { kind: 'signing'; domain: string; enabled: boolean }
  | { kind: 'rotate' | 'finish'; domain: string; algorithm: DkimAlgorithm };

/** One change to a domain's signing (a key, the switch, a rotation); the answer is the domain after it. */
export function changeDkimSigning(change: DkimSigningChange): Promise<DkimSigningDomain> {
  const options = { schema: dkimSigningChangeResponseSchema };
  const at = (path: string) => fillPath(path, { domain: change.domain });
  switch (change.kind) {
    case 'create':
      return apiPost(at(DKIM_SIGNING_API.keys), { algorithm: change.algorithm }, options);
    case 'signing':
      return apiPut(at(DKIM_SIGNING_API.signing), { enabled: change.enabled }, options);
    case 'rotate':
      return apiPost(at(DKIM_SIGNING_API.rotate), { algorithm: change.algorithm }, options);
    case 'finish':
      return apiPost(at(DKIM_SIGNING_API.finishRotation), { algorithm: change.algorithm }, options);
  }
}

export function useChangeDkimSigning() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: changeDkimSigning,
    onSuccess: (domain) => {
      // The answer is the domain as it is now: put it in place, no second look-up of DNS.
      queryClient.setQueryData<DkimSigningResponse>(queryKeys.dmarc.dkimSigning(), (old) =>
        old ? { domains: old.domains.map((d) => (d.domain === domain.domain ? domain : d)) } : old,
      );
    },
  });
}
