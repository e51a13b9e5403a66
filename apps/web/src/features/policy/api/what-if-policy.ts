import { POLICY_API, type PolicyInput, whatIfSchema } from '@moat/contracts/policy';
import { useMutation } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';

/** POST /api/v1/policy/what_if: how the last 7 days' messages would have been handled under `input`. */
export function whatIfPolicy(input: PolicyInput) {
  return apiPost(POLICY_API.whatIf, input, { schema: whatIfSchema });
}

export function useWhatIfPolicy() {
  return useMutation({ mutationFn: whatIfPolicy });
}
