import { Table, UnstyledButton } from '@mantine/core';
import type { SortDirection } from '@moat/contracts/list';
import { useTranslation } from '../../lib/i18n';

/**
 * A column header that sorts its list: a button in the header cell, `aria-sort` on the cell so a
 * screen reader says which column orders the rows and which way.
 */
export function SortableTh<S extends string>({
  column,
  label,
  sort,
  dir,
  onSort,
  firstDir = 'asc',
}: {
  column: S;
  label: string;
  sort: S;
  dir: SortDirection;
  onSort: (column: S, firstDir: SortDirection) => void;
  /** The direction of the first click (dates and sizes start with the newest or largest). */
  firstDir?: SortDirection;
}) {
  const { t } = useTranslation();
  const active = sort === column;
  const arrow = active ? (dir === 'asc' ? '▲' : '▼') : '↕';
  return (
    <Table.Th aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <UnstyledButton
        className="list-sort"
        onClick={() => onSort(column, firstDir)}
        aria-label={t('list.sortBy', { column: label })}
        data-active={active || undefined}
      >
        {label}
        <span aria-hidden="true" className="list-sort__arrow">
          {arrow}
        </span>
      </UnstyledButton>
    </Table.Th>
  );
}
