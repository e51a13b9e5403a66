import { deflateSync } from 'node:zlib';
import { DLP_DATA_TYPES } from '@moat/contracts/dlp';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import { parseMessage } from '../../mail/parse.ts';
import { type CompiledDlp, compileDlpRules, type DlpContent, dlpContentOf } from './index.ts';

/** The DLP tests' shared material: every built-in type on, messages and PDFs built as clients build them. */

/** Every built-in type at threshold 1; `fileTypes` are the file-type rule's list. */
export const allTypes = (fileTypes: string[] = []): CompiledDlp =>
  compileDlpRules({
    types: DLP_DATA_TYPES.map((type) => ({
      type,
      threshold: 1,
      fileTypes: type === 'file_type' ? fileTypes : [],
    })),
    custom: [],
  });

/** A text as the body of a message with nothing else. */
export const inBody = (body: string): DlpContent => ({
  subject: '',
  body,
  parts: [],
  files: [],
  unchecked: [],
});

/** A message as a mail client writes it, parsed as the gateway parses it. */
export async function message(mail: Mail.Options) {
  const raw = await new MailComposer({
    from: 'ann@acme.test',
    to: 'bob@example.test',
    subject: 'Report',
    ...mail,
  })
    .compile()
    .build();
  return parseMessage(raw);
}

/** What DLP reads of a short message carrying these files. */
export const withFiles = async (...attachments: Array<{ filename: string; content: Buffer | Uint8Array }>) =>
  dlpContentOf(
    await message({
      text: 'Please find the files attached.',
      attachments: attachments.map((a) => ({ filename: a.filename, content: Buffer.from(a.content) })),
    }),
  );

/** A PDF of these objects (numbered from 1), as they lie in the file; `trailer` adds to its dictionary. */
export function pdf(objects: Array<string | { dict: string; stream: Buffer }>, trailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  objects.forEach((object, i) => {
    if (typeof object === 'string') parts.push(Buffer.from(`${i + 1} 0 obj\n${object}\nendobj\n`, 'latin1'));
    else {
      parts.push(
        Buffer.from(
          `${i + 1} 0 obj\n<< ${object.dict} /Length ${object.stream.length} >>\nstream\n`,
          'latin1',
        ),
        object.stream,
        Buffer.from('\nendstream\nendobj\n', 'latin1'),
      );
    }
  });
  parts.push(Buffer.from(`trailer\n<< /Root 1 0 R ${trailer} >>\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

/** A compressed stream of this content. */
export const flate = (content: string) => ({
  dict: '/Filter /FlateDecode',
  stream: deflateSync(Buffer.from(content, 'latin1')),
});
