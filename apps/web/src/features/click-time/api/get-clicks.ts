import { CLICK_TIME_API, type ClicksQuery, clicksResponseSchema } from '@moat/contracts/click-time';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys, setFilters } from '../../../lib/query-keys';

/** GET /api/v1/clicks: people's clicks on rewritten links, by host, URL or message (admins). */
export function useClicks(query: ClicksQuery, enabled = true) {
  const filters = setFilters(query);
  return useQuery({
    queryKey: queryKeys.clickTime.clicks(filters),
    queryFn: ({ signal }) =>
      apiGet(CLICK_TIME_API.clicks, {
        query: filters,
        signal,
        schema: clicksResponseSchema,
      }),
    placeholderData: keepPreviousData,
    enabled,
  });
}
