import type { IntakeKind } from '@moat/contracts/dmarc';
import type { ParsedMessage } from '../../mail/parse.ts';

/** One file of a message sent to a report address, and what it looks like. */
export interface ReportFile {
  name: string;
  kind: IntakeKind;
  content: Uint8Array;
}

/** Aggregate reports come as XML, gzip or zip (RFC 7489 §7.2.1.1); by type or by name. */
const AGGREGATE_TYPE = /^(application\/(zip|x-zip-compressed|gzip|x-gzip|xml|octet-stream)|text\/xml)$/i;
const AGGREGATE_NAME = /\.(xml|zip|gz|gzip)$/i;
/** SMTP TLS reports (RFC 8460 §5.3): JSON, usually gzip. */
const TLS_TYPE = /^application\/tlsrpt\+(gzip|json)$/i;
/** The head of a message: where its own Content-Type is. */
const headOf = (raw: Buffer) => {
  const end = raw.indexOf('\r\n\r\n');
  return raw.subarray(0, end < 0 ? Math.min(raw.length, 64 * 1024) : end).toString('latin1');
};

/** Report files read of one message (each costs a parse and an intake row). */
export const FILES_PER_MESSAGE = 20;

/**
 * The report files of a message sent to a report address: its attachments that are reports by
 * type or name (a TLS report by its own type), or the body itself when a reporter sent the XML
 * inline. A failure report (ARF, RFC 6591) is the message itself: `multipart/report` with
 * `report-type=feedback-report`.
 */
export function reportFilesOf(raw: Buffer, parsed: ParsedMessage): ReportFile[] {
  const head = headOf(raw).replace(/\r?\n[ \t]+/g, ' ');
  if (/^content-type:\s*multipart\/report\b[^\r\n]*report-type="?feedback-report/im.test(head))
    return [{ name: 'failure report', kind: 'failure', content: raw }];
  const files: ReportFile[] = [];
  for (const a of parsed.attachments) {
    const type = a.contentType.split(';')[0]!.trim();
    if (TLS_TYPE.test(type) || /\.json(\.gz)?$/i.test(a.filename))
      files.push({ name: a.filename, kind: 'tls', content: a.content });
    else if (AGGREGATE_TYPE.test(type) || AGGREGATE_NAME.test(a.filename))
      files.push({ name: a.filename, kind: 'aggregate', content: a.content });
  }
  // A reporter sends one file a message, a few at most: the first FILES_PER_MESSAGE are read.
  if (files.length > 0) return files.slice(0, FILES_PER_MESSAGE);
  const text = parsed.text.trim();
  if (/^(<\?xml|<feedback[\s>])/i.test(text))
    return [{ name: 'report in the message body', kind: 'aggregate', content: Buffer.from(text) }];
  return [];
}
