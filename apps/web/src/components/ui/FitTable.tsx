import { Table, VisuallyHidden } from '@mantine/core';
import { useMediaQuery } from '@mantine/hooks';
import type { ReactNode } from 'react';

export interface FitColumn<T> {
  key: string;
  label: string;
  cell: (row: T) => ReactNode;
  /** A fixed width on a wide screen (`9rem`); the others share the rest. */
  width?: string;
  /** The card's heading on a phone (default: the first column). */
  title?: boolean;
}

/**
 * A small table that never scrolls sideways: on a wide screen its columns share the width and
 * long values wrap inside them; on a phone each row is a card whose first column is its heading
 * and the others are named fields (the console lists' card look).
 */
export function FitTable<T>({
  caption,
  rows,
  rowKey,
  columns,
  cardsBelow = '36em',
}: {
  caption: string;
  rows: readonly T[];
  rowKey: (row: T, index: number) => string;
  columns: readonly [FitColumn<T>, ...FitColumn<T>[]];
  /** The width below which rows are cards. */
  cardsBelow?: string;
}) {
  const narrow = useMediaQuery(`(max-width: ${cardsBelow})`, false, { getInitialValueInEffect: false });
  const head = columns.find((column) => column.title) ?? columns[0];
  const rest = columns.filter((column) => column !== head);
  if (narrow) {
    return (
      <ul className="list-cards" aria-label={caption}>
        {rows.map((row, index) => (
          <li key={rowKey(row, index)} className="list-card">
            <div className="list-card__title">{head.cell(row)}</div>
            <dl className="list-card__fields">
              {rest.map((column) => (
                <div key={column.key} className="list-card__field">
                  <dt>{column.label}</dt>
                  <dd>{column.cell(row)}</dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <Table verticalSpacing="xs" className="list-table">
      <VisuallyHidden component="caption">{caption}</VisuallyHidden>
      <Table.Thead>
        <Table.Tr>
          {columns.map((column) => (
            <Table.Th key={column.key} scope="col" w={column.width}>
              {column.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {rows.map((row, index) => (
          <Table.Tr key={rowKey(row, index)}>
            {columns.map((column) => (
              <Table.Td key={column.key} className="list-table__cell">
                {column.cell(row)}
              </Table.Td>
            ))}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}
