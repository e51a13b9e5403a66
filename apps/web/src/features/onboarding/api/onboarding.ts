import {
  dnsCheckSchema,
  ONBOARDING_API,
  type OnboardingState,
  onboardingChecklistSchema,
  onboardingStateSchema,
  testMessageResultSchema,
} from '@moat/contracts/onboarding';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/onboarding (admins): the domains, the MX host to name, the next hop. */
export const onboardingQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.onboarding(),
    queryFn: ({ signal }) => apiGet(ONBOARDING_API.onboarding, { schema: onboardingStateSchema, signal }),
  });

/**
 * GET /api/v1/onboarding/checklist (admins): what is still missing — every domain's records looked
 * up now, pending domains, the gateway's name, a mail server.
 */
export const onboardingChecklistQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.onboardingChecklist(),
    queryFn: ({ signal }) => apiGet(ONBOARDING_API.checklist, { schema: onboardingChecklistSchema, signal }),
  });

/** A change that answers the new state: kept as the cached state; what is missing is asked again. */
function useStateChange<V>(change: (value: V) => Promise<OnboardingState>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: (state) => {
      queryClient.setQueryData(queryKeys.onboarding(), state);
      void queryClient.invalidateQueries({ queryKey: queryKeys.onboardingChecklist() });
    },
  });
}

/** PUT /api/v1/onboarding/name: the organisation's own name. */
export const useRenameOrganisation = () =>
  useStateChange((name: string) => apiPut(ONBOARDING_API.name, { name }, { schema: onboardingStateSchema }));

/** POST /api/v1/onboarding/domains. */
export const useAddDomain = () =>
  useStateChange((domain: string) =>
    apiPost(ONBOARDING_API.domains, { domain }, { schema: onboardingStateSchema }),
  );

/** POST /api/v1/onboarding/domains/verify: a pending domain, by its TXT record. */
export const useVerifyDomain = () =>
  useStateChange((domain: string) =>
    apiPost(ONBOARDING_API.verifyDomain, { domain }, { schema: onboardingStateSchema }),
  );

/** PUT /api/v1/onboarding/next_hop: `host[:port]`, or null for the deployment's relay. */
export const useSaveNextHop = () =>
  useStateChange((next_hop: string | null) =>
    apiPut(ONBOARDING_API.nextHop, { next_hop }, { schema: onboardingStateSchema }),
  );

/** POST /api/v1/onboarding/complete. */
export const useCompleteOnboarding = () =>
  useStateChange((_: undefined) => apiPost(ONBOARDING_API.complete, {}, { schema: onboardingStateSchema }));

/** POST /api/v1/onboarding/dns_check: one domain's MX, SPF and DMARC (what is missing is asked again). */
export const useCheckDns = () => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domain: string) => apiPost(ONBOARDING_API.dnsCheck, { domain }, { schema: dnsCheckSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.onboardingChecklist() }),
  });
};

/** POST /api/v1/onboarding/test_message: what the mail server answered. */
export const useSendTestMessage = () =>
  useMutation({
    mutationFn: (to: string) =>
      apiPost(ONBOARDING_API.testMessage, { to }, { schema: testMessageResultSchema }),
  });
