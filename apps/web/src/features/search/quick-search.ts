import type { AppsResponse, SearchGroup, SearchQuery, SearchResult } from '@moat/contracts/console';
import { QUICK_SEARCH_CATEGORY_LIMIT, QUICK_SEARCH_DEFAULT_DATE_RANGE } from '@moat/contracts/constants';

/** SPEC §5: the keyword is trimmed. */
export const searchKeyword = (input: string) => input.trim();

/** SPEC §7 `saas`: the comma list of the tenant's active (enabled) apps. */
export function enabledAppNames(apps: AppsResponse | undefined): string {
  return (apps?.apps ?? [])
    .filter((app) => app.state === 'enabled')
    .map((app) => app.name)
    .join(',');
}

/** The query of one quick search (SPEC §7, §9: category limit 8, date range month). */
export function quickSearchQuery(keyword: string, saas: string): SearchQuery {
  return {
    keyword,
    saas,
    category_limit: QUICK_SEARCH_CATEGORY_LIMIT,
    date_range: QUICK_SEARCH_DEFAULT_DATE_RANGE,
  };
}

export interface ResultGroup {
  appName: string;
  results: SearchResult[];
}

/**
 * The groups to list: a group with an error is dropped (SPEC §7; the server drops them too), so
 * is a result that carries its own error, and a group left empty.
 */
export function resultGroups(groups: readonly SearchGroup[]): ResultGroup[] {
  return groups
    .filter((group) => !group.error)
    .map((group) => ({ appName: group.app_name, results: group.results.filter((result) => !result.error) }))
    .filter((group) => group.results.length > 0);
}
