import {
  type BannerPreviewInput,
  bannerPreviewSchema,
  SMART_BANNERS_API,
} from '@moat/contracts/smart-banners';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiPost } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/**
 * POST /api/v1/smart_banners/preview: the message as its recipient would get it under the
 * settings given (nothing saved). Keyed by what is asked, so the same draft is asked once; the
 * previous preview stays on screen while the next one comes.
 */
export function useBannerPreview(input: BannerPreviewInput | null) {
  const key = input ? JSON.stringify(input) : '';
  return useQuery({
    queryKey: queryKeys.smartBanners.preview(key),
    queryFn: ({ signal }) =>
      apiPost(SMART_BANNERS_API.preview, input, { schema: bannerPreviewSchema, signal }),
    enabled: input !== null,
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
}
