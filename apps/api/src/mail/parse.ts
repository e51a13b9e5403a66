import { createHash } from 'node:crypto';
import { simpleParser } from 'mailparser';

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

/** Parse a raw RFC 5322 message (mailparser): headers, bodies and attachments with their SHA-256. */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  const parsed = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true });
  const from = parsed.from?.value[0];
  return {
    fromAddress: (from?.address ?? '').toLowerCase(),
    fromName: from?.name ?? '',
    subject: parsed.subject ?? '',
    messageId: parsed.messageId ?? null,
    date: parsed.date ?? null,
    text: parsed.text ?? '',
    html: typeof parsed.html === 'string' ? parsed.html : null,
    attachments: parsed.attachments
      .filter((a) => a.contentDisposition === 'attachment' || a.filename)
      .map((a, i) => ({
        filename: a.filename ?? `attachment-${i + 1}`,
        contentType: a.contentType || 'application/octet-stream',
        size: a.size ?? a.content.length,
        sha256: sha256(a.content),
        content: a.content,
      })),
  };
}
