import { bannerSamplesSchema, SMART_BANNERS_API } from '@moat/contracts/smart-banners';
import { useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/smart_banners/samples: the newest messages Moat holds a copy of. */
export const useBannerSamples = () =>
  useQuery({
    queryKey: queryKeys.smartBanners.samples(),
    queryFn: ({ signal }) => apiGet(SMART_BANNERS_API.samples, { schema: bannerSamplesSchema, signal }),
  });
