import type { FastifyReply } from 'fastify';

export type CsvValue = string | number | boolean | null | undefined | readonly string[];

/** One column of a CSV export: its header and how a row gives its cell. */
export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => CsvValue;
}

/**
 * How a value a spreadsheet would read as a formula starts: =, +, -, @, a tab, a carriage return
 * or a line feed; their full-width (＝ ＋ － ＠) and small forms, which spreadsheets take for the
 * same signs; and any of them after leading blanks (spaces, no-break and ideographic spaces),
 * which a spreadsheet may trim before it reads the formula.
 */
const FORMULA_START = /^\s*[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]/;

/**
 * A cell as RFC 4180 wants it, made inert for spreadsheets: a value a spreadsheet would read as a
 * formula (`FORMULA_START`) gets a leading apostrophe, so a subject line written by an attacker
 * cannot run in the admin's Excel (OWASP "CSV injection").
 * Text is always quoted, so no reader takes a cell's text for anything but text (a leading
 * apostrophe, a separator of another locale); numbers and booleans are written as they are.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : value.join('; ');
  if (FORMULA_START.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

/** A cell's text as `csvCell` made it inert ('=…), read back as it was written. */
export const uninertCell = (text: string): string =>
  text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;

/** The rows as CSV text with a header line; CRLF line ends (RFC 4180). */
export function toCsv<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  // Headers are the export's own words: quoted only where RFC 4180 needs it.
  const header = (text: string) => (/[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const lines = [columns.map((column) => header(column.header)).join(',')];
  for (const row of rows) lines.push(columns.map((column) => csvCell(column.value(row))).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * Answers with a CSV download. The byte order mark lets Excel read UTF-8; the name carries the
 * date so two exports do not overwrite each other; nothing is cached (it holds addresses).
 */
export function sendCsv(reply: FastifyReply, name: string, csv: string, now: Date) {
  const stamp = now.toISOString().slice(0, 10);
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${name}-${stamp}.csv"`)
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff')
    .send(`\uFEFF${csv}`);
}
