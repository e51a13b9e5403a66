import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways when the window is narrower than `minWidth` (a phone): the
 * scrolling box is a named group in the tab order, so keyboard users reach it and scroll it with
 * the arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function TableScroll({
  label,
  minWidth,
  children,
}: {
  /** What the table holds, read when the scrolling box gets the focus. */
  label: string;
  minWidth: number;
  children: ReactNode;
}) {
  return (
    <Table.ScrollContainer
      minWidth={minWidth}
      scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'group', 'aria-label': label } }}
    >
      {children}
    </Table.ScrollContainer>
  );
}
