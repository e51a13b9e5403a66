import {
  Alert,
  Button,
  Center,
  EmptyState,
  Group,
  Loader,
  NativeSelect,
  Stack,
  Table,
  VisuallyHidden,
} from '@mantine/core';
import type { SortDirection } from '@moat/contracts/list';
import type { UseQueryResult } from '@tanstack/react-query';
import { Fragment, type ReactNode, useId, useLayoutEffect, useRef, useState } from 'react';
import { useTranslation } from '../../lib/i18n';
import { ApiErrorMessage } from '../ui/ApiErrorAlert';
import { ListFooter } from './ListParts';
import { SortableTh } from './SortableTh';

/**
 * Where a column's value goes on a card (the list on a narrow screen):
 * - `title`: the card's heading (the subject);
 * - `lead`: before the heading (a row's checkbox);
 * - `badge`: on the line under the heading (the verdict, a status);
 * - `field`: a labelled line of the card (the default);
 * - `none`: not on the card (what the heading or another field already says).
 */
export type CardPlace = 'title' | 'lead' | 'badge' | 'field' | 'none';

/** One column of a list: its header, its cell, its width in the table and its place on a card. */
export interface ListColumn<T, S extends string = string> {
  key: string;
  /** The header's words; also the label of the value on a card. */
  label: string;
  /** A header of its own instead of the label (a "select all" checkbox). */
  header?: ReactNode;
  /** The column sorts the list by this key (the list's `sortable` says the current sort). */
  sort?: S;
  /** The first click's direction (dates and sizes start with the newest or largest). */
  firstDir?: SortDirection;
  cell: (row: T) => ReactNode;
  /** What the card shows instead of the cell, when it differs. */
  cardCell?: (row: T) => ReactNode;
  /** The column's width in the table (a CSS length); a column without one shares what is left. */
  width?: string;
  card?: CardPlace;
}

/** The list's sort, as `useListState` hands it out. */
export interface ListSortable<S extends string> {
  sort: S;
  dir: SortDirection;
  onSort: (column: S, firstDir: SortDirection) => void;
}

/** A list that is loading, failed (with a retry) or empty; null when it has rows to show. */
function ListState({
  isPending,
  error,
  isEmpty,
  filtered,
  emptyTitle,
  emptyDescription,
  onRetry,
}: {
  isPending: boolean;
  error: unknown;
  isEmpty: boolean;
  /** A search or filter is active: the empty state says nothing matched. */
  filtered: boolean;
  emptyTitle: string;
  emptyDescription: string;
  onRetry: () => void;
}) {
  const { t } = useTranslation();
  if (isPending) {
    return (
      <Center py="xl" role="status">
        <Loader />
        <VisuallyHidden>{t('app.loading')}</VisuallyHidden>
      </Center>
    );
  }
  if (error) {
    return (
      <Alert color="red" variant="light" role="alert" title={t('quarantine.list.loadFailed')}>
        <Stack gap="xs" align="flex-start">
          <ApiErrorMessage error={error} />
          <Button size="xs" variant="light" onClick={onRetry}>
            {t('quarantine.list.retry')}
          </Button>
        </Stack>
      </Alert>
    );
  }
  if (isEmpty) {
    return (
      <EmptyState
        title={filtered ? t('quarantine.list.noMatchTitle') : emptyTitle}
        description={filtered ? t('quarantine.list.noMatchDescription') : emptyDescription}
        withIndicatorBackground
      />
    );
  }
  return null;
}

/**
 * The width of the list's own box, followed as it changes; 0 until it has been laid out (and
 * where nothing is laid out, as in a test's DOM), when the table is shown.
 */
function useBoxWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const box = ref.current;
    if (!box) return;
    setWidth(box.getBoundingClientRect().width);
    const observer = new ResizeObserver((entries) => {
      const next = entries[0]?.contentRect.width;
      if (next !== undefined) setWidth(next);
    });
    observer.observe(box);
    return () => observer.disconnect();
  }, []);
  return { ref, width };
}

/** The sort of a list shown as cards: one choice of column and direction (the headers are gone). */
function CardSort<S extends string>({
  columns,
  sortable,
}: {
  columns: ReadonlyArray<ListColumn<unknown, S>>;
  sortable: ListSortable<S>;
}) {
  const { t } = useTranslation();
  const sorts = columns.filter((column) => column.sort);
  if (sorts.length === 0) return null;
  const options = sorts.flatMap((column) => [
    { value: `${column.sort}:asc`, label: t('list.sortAscending', { column: column.label }) },
    { value: `${column.sort}:desc`, label: t('list.sortDescending', { column: column.label }) },
  ]);
  return (
    <NativeSelect
      label={t('list.sortLabel')}
      data={options}
      value={`${sortable.sort}:${sortable.dir}`}
      onChange={(event) => {
        const [column, dir] = event.currentTarget.value.split(':') as [S, SortDirection];
        // A click on the current column turns its direction; another column starts with `dir`.
        if (column === sortable.sort) {
          if (dir !== sortable.dir) sortable.onSort(column, dir);
        } else sortable.onSort(column, dir);
      }}
      className="list-cards__sort"
    />
  );
}

/**
 * A list's rows as cards (a narrow screen): the heading (the subject), its badges (the verdict),
 * the other values labelled, and the row's actions, always in view.
 */
function ListCards<T, S extends string>({
  rows,
  rowKey,
  columns,
  rowActions,
  details,
  caption,
}: {
  rows: readonly T[];
  rowKey: (row: T) => string;
  columns: ReadonlyArray<ListColumn<T, S>>;
  rowActions?: (row: T) => ReactNode;
  details?: (row: T) => ReactNode;
  caption: string;
}) {
  const place = (column: ListColumn<T, S>) => column.card ?? 'field';
  const value = (column: ListColumn<T, S>, row: T) => (column.cardCell ?? column.cell)(row);
  const headingId = useId();
  return (
    <ul className="list-cards" aria-label={caption}>
      {rows.map((row) => {
        const key = rowKey(row);
        const badges = columns.filter((c) => place(c) === 'badge');
        const fields = columns.filter((c) => place(c) === 'field');
        const actions = rowActions?.(row);
        const more = details?.(row);
        return (
          <li key={key} className="list-card" aria-labelledby={`${headingId}-${key}`}>
            <div className="list-card__head">
              {columns
                .filter((c) => place(c) === 'lead')
                .map((column) => (
                  <div key={column.key} className="list-card__lead">
                    {value(column, row)}
                  </div>
                ))}
              <div className="list-card__title" id={`${headingId}-${key}`}>
                {columns
                  .filter((c) => place(c) === 'title')
                  .map((column) => (
                    <div key={column.key}>{value(column, row)}</div>
                  ))}
              </div>
            </div>
            {badges.length > 0 && (
              <Group gap={6} wrap="wrap" className="list-card__badges">
                {badges.map((column) => (
                  <span key={column.key}>{value(column, row)}</span>
                ))}
              </Group>
            )}
            {fields.length > 0 && (
              <dl className="list-card__fields">
                {fields.map((column) => (
                  <div key={column.key} className="list-card__field">
                    <dt>{column.label}</dt>
                    <dd>{value(column, row)}</dd>
                  </div>
                ))}
              </dl>
            )}
            {actions && <div className="list-card__actions">{actions}</div>}
            {more && <div className="list-card__details">{more}</div>}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * The console's list, configured by its columns and row actions: loading, error (with a retry)
 * and empty states, then the rows and a footer with the pages. Where its box is wide enough for
 * the columns (`minWidth`), a table whose columns share the width (long values wrap at sensible
 * points, never widening it) with the row actions in the last column; below that, the rows become
 * cards with the heading, the badges, the other values and the actions, and a sort choice
 * replaces the headers. Nothing scrolls sideways in either.
 */
export function ListTable<T, S extends string = string>({
  list,
  page,
  onPage,
  filtered,
  caption,
  emptyTitle,
  emptyDescription,
  minWidth,
  columns,
  rowKey,
  rowActions,
  rowProps,
  details,
  sortable,
  actionsWidth = '7rem',
}: {
  list: UseQueryResult<{ items: T[]; total: number }>;
  page: number;
  onPage: (page: number) => void;
  filtered: boolean;
  caption: string;
  emptyTitle: string;
  emptyDescription: string;
  /** The narrowest box the table fits in; a narrower one shows cards. */
  minWidth: number;
  columns: ReadonlyArray<ListColumn<T, S>>;
  rowKey: (row: T) => string;
  /** The row's own buttons and links (the last column; the foot of a card). */
  rowActions?: (row: T) => ReactNode;
  /** Attributes of a row (a selected or an expired one). */
  rowProps?: (row: T) => { selected?: boolean; 'data-expired'?: boolean };
  /** A row's unfolded details (a row under it spanning the table; the foot of its card). */
  details?: (row: T) => ReactNode;
  /** The sort, when columns sort the list. */
  sortable?: ListSortable<S>;
  /** The width of the row actions' column: the buttons fit it, wrapping onto a second line if need be. */
  actionsWidth?: string;
}) {
  const { t } = useTranslation();
  const { ref, width } = useBoxWidth();
  const rows = list.data?.items ?? [];
  const shown = rows.length;
  const cards = width > 0 && width < minWidth;
  const span = columns.length + (rowActions ? 1 : 0);
  return (
    <div ref={ref} className="list-box">
      <ListState
        isPending={list.isPending}
        error={list.isError ? list.error : null}
        isEmpty={list.isSuccess && shown === 0}
        filtered={filtered}
        emptyTitle={emptyTitle}
        emptyDescription={emptyDescription}
        onRetry={() => void list.refetch()}
      />
      {list.isSuccess && shown > 0 && (
        <Stack gap="md">
          {cards ? (
            <>
              {sortable && (
                <CardSort columns={columns as ReadonlyArray<ListColumn<unknown, S>>} sortable={sortable} />
              )}
              <ListCards
                rows={rows}
                rowKey={rowKey}
                columns={columns}
                rowActions={rowActions}
                details={details}
                caption={caption}
              />
            </>
          ) : (
            <Table
              highlightOnHover
              verticalSpacing="sm"
              horizontalSpacing="xs"
              className="list-table"
              aria-busy={list.isPlaceholderData}
            >
              <Table.Caption>
                <VisuallyHidden>{caption}</VisuallyHidden>
              </Table.Caption>
              <colgroup>
                {columns.map((column) => (
                  <col key={column.key} style={column.width ? { width: column.width } : undefined} />
                ))}
                {rowActions && <col style={{ width: actionsWidth }} />}
              </colgroup>
              <Table.Thead>
                <Table.Tr>
                  {columns.map((column) =>
                    column.header !== undefined ? (
                      <Table.Th key={column.key}>{column.header}</Table.Th>
                    ) : column.sort && sortable ? (
                      <SortableTh
                        key={column.key}
                        column={column.sort}
                        label={column.label}
                        firstDir={column.firstDir}
                        {...sortable}
                      />
                    ) : (
                      <Table.Th key={column.key}>{column.label}</Table.Th>
                    ),
                  )}
                  {rowActions && (
                    <Table.Th>
                      <VisuallyHidden>{t('quarantine.list.actions')}</VisuallyHidden>
                    </Table.Th>
                  )}
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {rows.map((row) => {
                  const key = rowKey(row);
                  const props = rowProps?.(row) ?? {};
                  const more = details?.(row);
                  return (
                    <Fragment key={key}>
                      <Table.Tr
                        data-expired={props['data-expired'] || undefined}
                        bg={props.selected ? 'var(--mantine-primary-color-light)' : undefined}
                      >
                        {columns.map((column) => (
                          <Table.Td key={column.key} className="list-table__cell">
                            {column.cell(row)}
                          </Table.Td>
                        ))}
                        {rowActions && (
                          <Table.Td className="list-table__actions">
                            <div className="list-actions">{rowActions(row)}</div>
                          </Table.Td>
                        )}
                      </Table.Tr>
                      {more && (
                        <Table.Tr>
                          <Table.Td colSpan={span}>{more}</Table.Td>
                        </Table.Tr>
                      )}
                    </Fragment>
                  );
                })}
              </Table.Tbody>
            </Table>
          )}
          <ListFooter page={page} total={list.data.total} shown={shown} onPage={onPage} />
        </Stack>
      )}
    </div>
  );
}
