import { POLICY_API, policySchema } from '@moat/contracts/policy';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/policy: the tenant's mail policy, and whether the signed-in user may change it. */
export function getPolicy(signal?: AbortSignal) {
  return apiGet(POLICY_API.policy, { signal, schema: policySchema });
}

export function policyQueryOptions() {
  return queryOptions({ queryKey: queryKeys.policy.current(), queryFn: ({ signal }) => getPolicy(signal) });
}

export function usePolicy() {
  return useQuery(policyQueryOptions());
}
