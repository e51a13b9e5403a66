import { POLICY_API, type PolicyInput, policySchema } from '@moat/contracts/policy';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** PUT /api/v1/policy: save the whole policy (admins and view_edit_policy users); audited. */
export function savePolicy(input: PolicyInput) {
  return apiPut(POLICY_API.policy, input, { schema: policySchema });
}

export function useSavePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: savePolicy,
    onSuccess: (saved) => {
      queryClient.setQueryData(queryKeys.policy.current(), saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.console.overview() });
    },
  });
}
