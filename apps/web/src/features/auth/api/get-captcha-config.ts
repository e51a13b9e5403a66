import { API } from '@moat/contracts/api-paths';
import { recaptchaConfigSchema } from '@moat/contracts/public-config';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/generic/recaptcha_config: which captcha runs, and its site key or challenge URL. */
export function getCaptchaConfig(signal?: AbortSignal) {
  return apiGet(API.recaptchaConfig, { schema: recaptchaConfigSchema, signal });
}

export function captchaConfigQueryOptions() {
  return queryOptions({
    queryKey: queryKeys.captchaConfig(),
    queryFn: ({ signal }) => getCaptchaConfig(signal),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useCaptchaConfig() {
  return useQuery(captchaConfigQueryOptions());
}
