import { SMART_BANNERS_API, smartBannersSchema } from '@moat/contracts/smart-banners';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/smart_banners (admins): each verdict's banner and the senders spared. */
export const smartBannersQueryOptions = () =>
  queryOptions({
    queryKey: queryKeys.smartBanners.settings(),
    queryFn: ({ signal }) => apiGet(SMART_BANNERS_API.settings, { schema: smartBannersSchema, signal }),
  });

export const useSmartBanners = () => useQuery(smartBannersQueryOptions());
