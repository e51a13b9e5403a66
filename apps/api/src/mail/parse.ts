import { createHash } from 'node:crypto';
import { packageOnFirstUse } from '../lib/on-first-use.ts';
import { textOfHtml } from './html-text.ts';

/** mailparser, loaded with the first message parsed. */
export const mailparser = packageOnFirstUse<typeof import('mailparser')>('mailparser');

export interface ParsedAttachment {
  filename: string;
  contentType: string;
  size: number;
  sha256: string;
  content: Buffer;
}

export interface ParsedMessage {
  fromAddress: string;
  fromName: string;
  subject: string;
  messageId: string | null;
  date: Date | null;
  text: string;
  html: string | null;
  attachments: ParsedAttachment[];
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** No NUL (PostgreSQL text cannot hold it; an encoded word can still decode to one). */
const noNul = (value: string) => value.replaceAll('\u0000', '');
/** A UTF-16 half without its other half (a broken encoded word): no database or JSON text takes it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u001f\u007f]/g;
/** A header value on one line: no control characters at all, no lone surrogate. */
const oneLine = (value: string) => value.replace(CONTROL, ' ').replace(LONE_SURROGATE, '\ufffd').trim();

/** Parse a raw RFC 5322 message (mailparser): headers, bodies and attachments with their SHA-256. */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  // No HTML-to-text conversion in mailparser: its HTML parser takes time quadratic in the nesting
  // depth (100,000 nested tags held the event loop ~10 s a pass). A linear tag stripper gives the
  // text of HTML-only mail instead. Nor the HTML form of plain text, which nothing here reads.
  const { simpleParser } = await mailparser();
  const parsed = await simpleParser(raw, {
    skipImageLinks: true,
    skipTextLinks: true,
    skipHtmlToText: true,
    skipTextToHtml: true,
  });
  const from = parsed.from?.value[0];
  return {
    fromAddress: oneLine(from?.address ?? '').toLowerCase(),
    fromName: oneLine(from?.name ?? ''),
    subject: oneLine(parsed.subject ?? ''),
    messageId: parsed.messageId ? oneLine(parsed.messageId) : null,
    date: parsed.date && !Number.isNaN(parsed.date.getTime()) ? parsed.date : null,
    text: noNul(parsed.text || (typeof parsed.html === 'string' ? textOfHtml(parsed.html) : '')),
    html: typeof parsed.html === 'string' ? noNul(parsed.html) : null,
    attachments: parsed.attachments
      .filter((a) => a.contentDisposition === 'attachment' || a.filename)
      .map((a, i) => ({
        filename: oneLine(a.filename ?? '') || `attachment-${i + 1}`,
        contentType: oneLine(a.contentType || '') || 'application/octet-stream',
        size: a.size ?? a.content.length,
        sha256: sha256(a.content),
        content: a.content,
      })),
  };
}
