import type { SortDirection } from '@moat/contracts/list';
import { type AnyColumn, asc, desc, type SQL } from 'drizzle-orm';

/**
 * ORDER BY of an admin list: the chosen column in the chosen direction, then the row id the same
 * way, so rows that tie keep one order and no row shows on two pages.
 */
export function orderOf(column: AnyColumn | SQL, dir: SortDirection, id: AnyColumn): SQL[] {
  const by = dir === 'asc' ? asc : desc;
  return [by(column), by(id)];
}
