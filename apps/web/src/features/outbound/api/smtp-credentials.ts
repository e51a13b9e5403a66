import { fillPath } from '@moat/contracts/api-paths';
import {
  OUTBOUND_API,
  type SmtpCredentialBody,
  smtpCredentialCreatedSchema,
  smtpCredentialListSchema,
  smtpCredentialSchema,
} from '@moat/contracts/outbound';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiDelete, apiGet, apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/outbound/credentials: the submission credentials (no passwords) and the endpoint. */
export const credentialsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.outbound.credentials(),
    queryFn: ({ signal }) => apiGet(OUTBOUND_API.credentials, { signal, schema: smtpCredentialListSchema }),
  });

/** POST: a new credential; its password is in the answer only (the list never has it). */
export function useCreateCredential() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SmtpCredentialBody) =>
      apiPost(OUTBOUND_API.credentials, body, { schema: smtpCredentialCreatedSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.outbound.credentials() }),
  });
}

/** DELETE: revoke a credential. */
export function useRevokeCredential() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiDelete(fillPath(OUTBOUND_API.credential, { id }), { schema: smtpCredentialSchema }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.outbound.credentials() }),
  });
}
