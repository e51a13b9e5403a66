import { describe, expect, it } from 'vitest';
import { csvCell, toCsv } from './csv.ts';

describe('toCsv', () => {
  it('quotes every text cell, doubling inner quotes; numbers and the headers stay bare', () => {
    const csv = toCsv(
      [
        { header: 'subject', value: (row: { s: string; n: number }) => row.s },
        { header: 'size', value: (row) => row.n },
      ],
      [
        { s: 'Hello, "world"', n: 12 },
        { s: 'two\nlines', n: 0 },
      ],
    );
    expect(csv).toBe('subject,size\r\n"Hello, ""world""",12\r\n"two\nlines",0\r\n');
  });

  it('makes a formula written by a sender inert in a spreadsheet', () => {
    expect(csvCell('=HYPERLINK("http://evil.example","click")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""click"")"`,
    );
    expect(csvCell('+1')).toBe(`"'+1"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('plain')).toBe('"plain"');
    expect(csvCell('\tcmd')).toBe(`"'\tcmd"`);
    // Numbers of the export itself stay numbers.
    expect(csvCell(-5)).toBe('-5');
  });

  it('writes empty cells for missing values and joins lists', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(['a', 'b'])).toBe('"a; b"');
  });
});
