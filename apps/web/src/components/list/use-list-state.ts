import { useDebouncedValue } from '@mantine/hooks';
import { DATE_RANGE_PRESETS, type DateRangePreset, type SortDirection } from '@moat/contracts/list';
import { QUARANTINE_PAGE_SIZE } from '@moat/contracts/quarantine-admin';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { RangeControl } from './ListToolbar';
import { SEARCH_DEBOUNCE_MS } from './use-list-controls';

/** The time range of a list: a preset, a custom span of whole days, or all time (''). */
export type RangeChoice = DateRangePreset | 'custom' | '';

const PRESET_MS: Record<DateRangePreset, number> = {
  '24h': 24 * 3600_000,
  '7d': 7 * 24 * 3600_000,
  '30d': 30 * 24 * 3600_000,
  '90d': 90 * 24 * 3600_000,
};

const isPreset = (value: string | null): value is DateRangePreset =>
  (DATE_RANGE_PRESETS as readonly string[]).includes(value ?? '');
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A yyyy-mm-dd of the date inputs as the start of that day here, in ISO 8601 (UTC). */
function startOfDay(day: string, plusDays = 0): string | undefined {
  if (!DAY.test(day)) return undefined;
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(y, m - 1, d + plusDays);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** The from/to of the API for a range: a preset counts back from now, rounded to the minute so the key holds still. */
export function rangeQuery(
  range: RangeChoice,
  fromDay: string,
  toDay: string,
  now: number,
): { from?: string; to?: string } {
  if (isPreset(range)) {
    const minute = Math.floor(now / 60_000) * 60_000;
    return { from: new Date(minute - PRESET_MS[range]).toISOString() };
  }
  if (range === 'custom') {
    const from = startOfDay(fromDay);
    // The last day is included: the range ends at the start of the day after it.
    const to = startOfDay(toDay, 1);
    return { ...(from ? { from } : {}), ...(to ? { to } : {}) };
  }
  return {};
}

/** A list's own filters: each a URL parameter of that name, one of its values or free text. */
export type FilterSpec = Record<string, readonly string[] | 'text'>;
/** The filters' values ('' is "all"); a value the URL holds that is not among a filter's values is ''. */
export type FilterValues<FS extends FilterSpec> = {
  [K in keyof FS]: FS[K] extends readonly (infer V)[] ? V | '' : string;
};

export interface ListStateSpec<S extends string, FS extends FilterSpec> {
  sorts: readonly S[];
  defaultSort: S;
  defaultDir?: SortDirection;
  filters: FS;
}

/**
 * Search, filters, time range, sort and page of an admin list, held in the page's URL so a link
 * (an Overview counter, a chart, a shared address) opens the list already filtered, and Back
 * returns to the previous filter. The search is typed into local state and written to the URL
 * once the typing pauses; any change but the page itself starts again at page 1.
 */
export function useListState<S extends string, FS extends FilterSpec>(spec: ListStateSpec<S, FS>) {
  const [params, setParams] = useSearchParams();
  const urlSearch = params.get('q') ?? '';
  const [search, setSearch] = useState(urlSearch);
  const [debounced] = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);

  // react-router hands a functional update the parameters of the last render, so two changes in
  // one tick would lose the first: each change builds on the last one written instead.
  // A render before the navigation lands still shows the old parameters: only a new address
  // (this change arriving, Back, a link) replaces what was last written.
  // A render of an earlier change of this list, arriving after a later one was written (quick
  // successive changes), must not replace that later one: the addresses written and not yet
  // seen are remembered, and only an address that is not among them, or the last of them, counts.
  const latest = useRef(params);
  const seen = useRef(params.toString());
  const pending = useRef<string[]>([]);
  if (seen.current !== params.toString()) {
    seen.current = params.toString();
    const at = pending.current.indexOf(seen.current);
    if (at === -1) {
      pending.current = [];
      latest.current = params;
    } else {
      pending.current = pending.current.slice(at + 1);
      if (pending.current.length === 0) latest.current = params;
    }
  }
  const update = (changes: Record<string, string | undefined>, keepPage = false) => {
    const next = new URLSearchParams(latest.current);
    for (const [name, value] of Object.entries(changes)) {
      if (value) next.set(name, value);
      else next.delete(name);
    }
    if (!keepPage) next.delete('page');
    latest.current = next;
    pending.current.push(next.toString());
    setParams(next, { replace: true });
  };

  // The typed search reaches the URL once typing pauses; a new URL (Back, a link) refills the box.
  // biome-ignore lint/correctness/useExhaustiveDependencies: only a settled search is written
  useEffect(() => {
    if (debounced !== urlSearch.trim()) update({ q: debounced || undefined });
  }, [debounced]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: follows the URL, not the box
  useEffect(() => {
    if (urlSearch.trim() !== search.trim()) setSearch(urlSearch);
  }, [urlSearch]);

  const filters = Object.fromEntries(
    Object.entries(spec.filters).map(([name, values]) => {
      const value = (params.get(name) ?? '').trim();
      return [name, values === 'text' || values.includes(value) ? value : ''];
    }),
  ) as FilterValues<FS>;
  const sortParam = params.get('sort');
  const sort = (spec.sorts as readonly string[]).includes(sortParam ?? '')
    ? (sortParam as S)
    : spec.defaultSort;
  const dir: SortDirection =
    params.get('dir') === 'asc' ? 'asc' : params.get('dir') === 'desc' ? 'desc' : (spec.defaultDir ?? 'desc');
  const rangeParam = params.get('range') ?? '';
  const range: RangeChoice = isPreset(rangeParam) || rangeParam === 'custom' ? rangeParam : '';
  const fromDay = params.get('from') ?? '';
  const toDay = params.get('to') ?? '';
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '1', 10) || 1);

  const minute = Math.floor(Date.now() / 60_000);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a preset moves with the minute, not every render
  const dates = useMemo(() => rangeQuery(range, fromDay, toDay, Date.now()), [range, fromDay, toDay, minute]);
  const q = urlSearch.trim() || undefined;
  const chosen = Object.fromEntries(Object.entries(filters).filter(([, value]) => value)) as Partial<{
    [K in keyof FS]: Exclude<FilterValues<FS>[K], ''>;
  }>;

  /** The list's query without its page: what the CSV export takes. */
  const exportQuery = { q, ...dates, sort, dir, ...chosen };
  const setSort = (column: S, firstDir: SortDirection = 'asc') =>
    update({
      sort: column === spec.defaultSort ? undefined : column,
      dir: column === sort ? (dir === 'asc' ? 'desc' : 'asc') : firstDir,
    });
  const setRange = (next: RangeChoice, from = '', to = '') =>
    update({
      range: next || undefined,
      from: next === 'custom' ? from : undefined,
      to: next === 'custom' ? to : undefined,
    });
  const setPage = (next: number) => update({ page: next > 1 ? String(next) : undefined }, true);
  const filtered = Boolean(q) || Object.keys(chosen).length > 0 || range !== '';
  return {
    search,
    setSearch,
    filters,
    setFilter: <K extends keyof FS & string>(name: K, value: FilterValues<FS>[K]) =>
      update({ [name]: (value as string) || undefined }),
    sort,
    dir,
    /** A click on a column: sort by it (newest or largest first for dates and sizes), or turn its direction. */
    setSort,
    range,
    fromDay,
    toDay,
    setRange,
    page,
    setPage,
    exportQuery,
    query: { ...exportQuery, limit: QUARANTINE_PAGE_SIZE, offset: (page - 1) * QUARANTINE_PAGE_SIZE },
    filtered,
    /** The toolbar's time-range control, the sortable headers' props and the table's paging props. */
    rangeControl: { value: range, fromDay, toDay, onChange: setRange } satisfies RangeControl,
    sortable: { sort, dir, onSort: setSort },
    paging: { page, onPage: setPage, filtered },
  };
}
export type ListState<S extends string, FS extends FilterSpec> = ReturnType<typeof useListState<S, FS>>;
