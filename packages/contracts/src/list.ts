import { z } from 'zod/mini';
import { noNul } from './validation.ts';

/**
 * What every admin list of the console shares (issue 11 "one shared list component"): a search,
 * a time range, a sort and a page. Each list adds its own filters and names its sortable columns.
 */

export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** The time-range presets of a list's toolbar; `custom` uses `from` and `to` as given. */
export const DATE_RANGE_PRESETS = ['24h', '7d', '30d', '90d'] as const;
export type DateRangePreset = (typeof DATE_RANGE_PRESETS)[number];

/** A CSV export holds at most this many rows (the newest first, or in the list's sort). */
export const CSV_EXPORT_MAX_ROWS = 10_000;

/** The search box: trimmed, bounded, no NUL (PostgreSQL refuses it in text). */
export const searchParam = z.optional(
  z.string().check(z.trim(), z.maxLength(200), z.refine(noNul, 'must not contain a NUL character')),
);

/** A free-text filter on one field (an address, a Message-ID): same rules as the search. */
export const textFilterParam = z.optional(
  z.string().check(z.trim(), z.maxLength(320), z.refine(noNul, 'must not contain a NUL character')),
);

/**
 * The query of a list with these sortable columns. `from` is inclusive and `to` exclusive (ISO
 * 8601 with an offset); a range that ends before it starts is refused, not silently emptied.
 */
export function listQuerySchema<const S extends readonly [string, ...string[]]>(
  sorts: S,
  defaultSort: S[number],
) {
  return z.object({
    q: searchParam,
    from: z.optional(z.iso.datetime({ offset: true })),
    to: z.optional(z.iso.datetime({ offset: true })),
    sort: z._default(z.enum(sorts), defaultSort as never),
    dir: z._default(z.enum(SORT_DIRECTIONS), 'desc'),
    limit: z._default(z.coerce.number().check(z.int(), z.gte(1), z.lte(200)), 50),
    offset: z._default(z.coerce.number().check(z.int(), z.gte(0), z.lte(100_000)), 0),
  });
}

/** The refinement every list query applies after its own fields are added. */
export function rangeInOrder(query: { from?: string | undefined; to?: string | undefined }): boolean {
  return !query.from || !query.to || Date.parse(query.from) <= Date.parse(query.to);
}
export const RANGE_ORDER_MESSAGE = { message: 'from must not be after to', path: ['to'] };
