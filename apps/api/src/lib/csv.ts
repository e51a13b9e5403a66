import type { FastifyReply } from 'fastify';

export type CsvValue = string | number | boolean | null | undefined | readonly string[];

/** One column of a CSV export: its header and how a row gives its cell. */
export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => CsvValue;
}

/**
 * A cell as RFC 4180 wants it, made inert for spreadsheets: a value a spreadsheet would read as a
 * formula (starting with =, +, -, @, a tab or a carriage return) gets a leading apostrophe, so a
 * subject line written by an attacker cannot run in the admin's Excel (OWASP "CSV injection").
 * Text is always quoted, so no reader takes a cell's text for anything but text (a leading
 * apostrophe, a separator of another locale); numbers and booleans are written as they are.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : value.join('; ');
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

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
