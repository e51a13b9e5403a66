import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { FitTable } from './FitTable';

const ROWS = [
  { id: '1', file: 'invoice-2026.pdf', size: '12 KB' },
  { id: '2', file: 'update.exe', size: '3 MB' },
];

function renderTable() {
  return render(
    <MantineProvider>
      <FitTable
        caption="Attachments"
        rows={ROWS}
        rowKey={(row) => row.id}
        columns={[
          { key: 'file', label: 'File', cell: (row) => row.file },
          { key: 'size', label: 'Size', cell: (row) => row.size, width: '6rem' },
        ]}
      />
    </MantineProvider>,
  );
}

const realMatchMedia = window.matchMedia;
afterEach(() => {
  window.matchMedia = realMatchMedia;
});

describe('FitTable', () => {
  it('is a table named by its caption on a wide screen, a column per field', () => {
    renderTable();
    const table = screen.getByRole('table', { name: 'Attachments' });
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((th) => th.textContent),
    ).toEqual(['File', 'Size']);
    expect(within(table).getAllByRole('row')).toHaveLength(3);
    expect(within(table).getByRole('cell', { name: 'update.exe' })).toBeInTheDocument();
  });

  it('is one card per row on a phone: the first column its heading, the others named fields', () => {
    window.matchMedia = ((query: string) => ({
      ...realMatchMedia(query),
      matches: query.includes('max-width'),
    })) as typeof window.matchMedia;
    renderTable();
    expect(screen.queryByRole('table')).toBeNull();
    const cards = within(screen.getByRole('list', { name: 'Attachments' })).getAllByRole('listitem');
    expect(cards).toHaveLength(2);
    expect(within(cards[1]!).getByText('update.exe')).toBeInTheDocument();
    expect(within(cards[1]!).getByText('Size')).toBeInTheDocument();
    expect(within(cards[1]!).getByText('3 MB')).toBeInTheDocument();
  });
});
