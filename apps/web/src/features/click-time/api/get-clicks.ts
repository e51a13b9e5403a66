import { CLICK_TIME_API, type ClicksQuery, clicksResponseSchema } from '@moat/contracts/click-time';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** GET /api/v1/clicks: people's clicks on rewritten links, by host, URL or message (admins). */
export function useClicks(query: ClicksQuery, enabled = true) {
  const filters = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined && v !== ''));
  return useQuery({
    queryKey: queryKeys.clickTime.clicks(filters as never),
    queryFn: ({ signal }) =>
      apiGet(CLICK_TIME_API.clicks, {
        query: filters as Record<string, string>,
        signal,
        schema: clicksResponseSchema,
      }),
    placeholderData: keepPreviousData,
    enabled,
  });
}
