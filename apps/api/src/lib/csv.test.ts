import { describe, expect, it } from 'vitest';
import { csvCell, toCsv, uninertCell } from './csv.ts';

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

  it('makes full-width formula signs, CR and LF, and a formula after leading blanks inert too', () => {
    // Full-width ＝ ＋ － ＠ (as a Japanese input method types them): spreadsheets read them as formulas.
    expect(csvCell('＝HYPERLINK("http://evil.example")')).toBe(`"'＝HYPERLINK(""http://evil.example"")"`);
    expect(csvCell('＋1')).toBe(`"'＋1"`);
    expect(csvCell('－1')).toBe(`"'－1"`);
    expect(csvCell('＠SUM(A1)')).toBe(`"'＠SUM(A1)"`);
    // Their small forms too.
    expect(csvCell('﹦1+1')).toBe(`"'﹦1+1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell('\n=1')).toBe(`"'\n=1"`);
    // A spreadsheet may trim the blanks first, and then run the formula.
    expect(csvCell(' =1+1')).toBe(`"' =1+1"`);
    expect(csvCell('\u00a0\u3000＝1')).toBe(`"'\u00a0\u3000＝1"`);
    expect(csvCell('  \t@cmd')).toBe(`"'  \t@cmd"`);
    // Blanks alone, or before plain words, stay as they are.
    expect(csvCell('  ')).toBe('"  "');
    expect(csvCell(' Invoice = paid')).toBe('" Invoice = paid"');
  });

  it('reads an inert cell back as it was written (an import of an export), and leaves other apostrophes', () => {
    for (const text of ['=1', '＝1', ' =1', '\t@x', '－2', "'quoted'", 'plain']) {
      const cell = csvCell(text).slice(1, -1).replace(/""/g, '"');
      expect(uninertCell(cell), text).toBe(text);
    }
    expect(uninertCell("'plain")).toBe("'plain");
  });

  it('writes empty cells for missing values and joins lists', () => {
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(['a', 'b'])).toBe('"a; b"');
  });
});
