import { USERS_API, userListSchema } from '@moat/contracts/users';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiGet } from '../../../lib/http';
import { queryKeys } from '../../../lib/query-keys';

/** How many of the organisation's users the name field offers at once. */
const OFFERED = 8;

/**
 * The organisation's users whose name or address contains `text` (GET /api/v1/users?q), as people
 * to protect: a name and the address they write from. Users without a name are left out.
 */
export function usePeopleNamed(text: string, enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.vips.people(text),
    queryFn: async ({ signal }) => {
      const { items } = await apiGet(USERS_API.users, {
        query: { q: text, limit: OFFERED, sort: 'email', dir: 'asc' },
        signal,
        schema: userListSchema,
      });
      return items
        .map((u) => ({ name: `${u.first_name} ${u.last_name}`.trim(), email: u.email }))
        .filter((p) => p.name.length >= 3);
    },
    enabled: enabled && text.length >= 2,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  });
}
