import { API } from '@moat/contracts/api-paths';
import { type PublicFeatures, publicFeaturesSchema } from '@moat/contracts/features';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/generic/ui_features_public: the flags the sign-in area and public pages need. */
export function getPublicFeatures(signal?: AbortSignal): Promise<PublicFeatures> {
  return apiGet(API.uiFeaturesPublic, { schema: publicFeaturesSchema, signal });
}

export function publicFeaturesQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.publicFeatures(),
    queryFn: ({ signal }) => getPublicFeatures(signal),
    staleTime: 5 * 60_000,
  });
}

export function usePublicFeatures() {
  return useQuery(publicFeaturesQueryOptions());
}
