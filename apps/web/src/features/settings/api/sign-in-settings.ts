import { type SignInSettingsUpdate, SSO_API, samlIdpSchema, signInSettingsSchema } from '@moat/contracts/sso';
import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { apiGet, apiPost, apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/settings/sign_in (admins): SAML and whether passwords stay allowed. */
export const signInSettingsQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.signInSettings(),
    queryFn: ({ signal }) => apiGet(SSO_API.settings, { schema: signInSettingsSchema, signal }),
  });

export function useSaveSignInSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SignInSettingsUpdate) =>
      apiPut(SSO_API.settings, body, { schema: signInSettingsSchema }),
    onSuccess: (saved) => queryClient.setQueryData(queryKeys.signInSettings(), saved),
  });
}

/** POST /api/v1/settings/sign_in/saml/test: what Moat reads from the metadata, nothing saved. */
export function useTestSamlMetadata() {
  return useMutation({
    mutationFn: (metadataXml: string) =>
      apiPost(SSO_API.samlTest, { metadata_xml: metadataXml }, { schema: samlIdpSchema }),
  });
}
