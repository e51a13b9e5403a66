import { mfaEnrolmentSchema } from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { queryOptions } from '@tanstack/react-query';
import { apiPut } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/**
 * PUT /api/v1/mfa/setup_public: the MFA enrolment (secret, QR code) of a sign-in whose admin
 * requires MFA. The server keeps one pending secret per sign-in, so asking again is harmless.
 */
export function setupMfaPublic(userEmail: string, signal?: AbortSignal) {
  return apiPut(AUTH_API.mfaSetupPublic, { userEmail }, { schema: mfaEnrolmentSchema, signal });
}

export function requiredMfaEnrolmentQueryOptions(userEmail: string) {
  return queryOptions({
    queryKey: queryKeys.requiredMfaEnrolment(userEmail),
    queryFn: ({ signal }) => setupMfaPublic(userEmail, signal),
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 0,
    retry: false,
  });
}
