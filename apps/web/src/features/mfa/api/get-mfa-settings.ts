import { mfaSettingsSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { queryOptions } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** POST /api/v1/mfa/setup: the signed-in user's MFA settings (a lookup, despite the method). */
export function getMfaSettings(userEmail: string, signal?: AbortSignal) {
  return apiPost(AUTH_API.mfaSetup, { userEmail }, { schema: mfaSettingsSchema, signal });
}

export function mfaSettingsQueryOptions(userEmail: string) {
  return queryOptions({
    queryKey: queryKeys.mfaSettings(userEmail),
    queryFn: ({ signal }) => getMfaSettings(userEmail, signal),
    staleTime: 0,
  });
}
