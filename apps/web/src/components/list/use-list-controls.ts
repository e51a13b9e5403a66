import { useDebouncedValue } from '@mantine/hooks';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { useState } from 'react';

/** The search waits this long after the last key before it asks the server. */
export const SEARCH_DEBOUNCE_MS = 300;

/**
 * Search and paging of an admin list. The search is trimmed (an empty one is no search) and
 * debounced; `key` changes with the search and the filters, and a new key starts at page 1.
 */
export function useListControls(filters: Record<string, string | undefined>) {
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);
  const q = debounced || undefined;
  const key = JSON.stringify({ q, ...filters });
  const [paging, setPaging] = useState({ key, page: 1 });
  const page = paging.key === key ? paging.page : 1;
  return {
    search,
    setSearch,
    key,
    page,
    setPage: (next: number) => setPaging({ key, page: next }),
    query: { q, limit: QUARANTINE_PAGE_SIZE, offset: (page - 1) * QUARANTINE_PAGE_SIZE },
    filtered: Boolean(q) || Object.values(filters).some(Boolean),
  };
}
