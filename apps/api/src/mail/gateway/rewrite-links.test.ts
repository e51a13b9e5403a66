import nodemailer, { type SendMailOptions } from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { parseMessage } from '../parse.ts';
import { encodeQuotedPrintable, rewriteLinks } from './rewrite-links.ts';

/** A message as nodemailer writes it (the way real mail is built), as bytes. */
async function compose(options: SendMailOptions): Promise<Buffer> {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  const info = await transport.sendMail({
    from: 'a@sender.test',
    to: 'b@acme.test',
    subject: 'S',
    ...options,
  });
  return info.message as Buffer;
}

const wrap = (url: string, index: number) => `https://moat.test/l/T${index}?u=${encodeURIComponent(url)}`;

describe('rewriteLinks', () => {
  it('rewrites every href of the HTML part and every URL of the text part, in order, and nothing else', async () => {
    const raw = await compose({
      text: 'Read https://news.example/a?x=1&y=2. Or write to me.',
      html: '<p><a href="https://news.example/a?x=1&amp;y=2">read</a> <a href=\'mailto:me@sender.test\'>mail</a> <a href=#top>top</a> <area href=http://map.example/z> <a class="c" HREF = "HTTPS://Up.example/">up</a></p><script>var s="<a href=\\"https://no.example/\\">";</script>',
      attachments: [{ filename: 'note.txt', content: 'see https://attached.example/' }],
    });
    const seen: string[] = [];
    const { raw: out, rewritten } = rewriteLinks(raw, (url, i) => {
      seen.push(url);
      return wrap(url, i);
    });
    expect(rewritten).toBe(4);
    // The text part comes first in the message; character references are read as a browser reads them.
    expect(seen).toEqual([
      'https://news.example/a?x=1&y=2',
      'https://news.example/a?x=1&y=2',
      'http://map.example/z',
      'HTTPS://Up.example/',
    ]);
    const parsed = await parseMessage(out);
    // The sentence's full stop is not part of the URL.
    expect(parsed.text).toContain(`Read ${wrap('https://news.example/a?x=1&y=2', 0)}. Or write`);
    expect(parsed.html).toContain(
      `href="${wrap('https://news.example/a?x=1&y=2', 1).replace(/&/g, '&amp;')}"`,
    );
    expect(parsed.html).toContain("href='mailto:me@sender.test'");
    expect(parsed.html).toContain('href=#top');
    expect(parsed.html).toContain('<script>var s="<a href=\\"https://no.example/\\">";</script>');
    // The attachment and the headers stay as they were.
    expect(parsed.attachments[0]!.content.toString()).toBe('see https://attached.example/');
    expect(parsed.subject).toBe('S');
    expect(out.toString('latin1').split('\r\n\r\n')[0]).toBe(raw.toString('latin1').split('\r\n\r\n')[0]);
  });

  it('keeps base64 parts base64 and turns other encodings into quoted-printable with short lines', async () => {
    const long = `<p>${'word '.repeat(400)}<a href="https://a.example/">x</a></p>`;
    const base64 = await compose({ html: { content: long }, textEncoding: 'base64' });
    const qp = await compose({ html: long, textEncoding: 'quoted-printable' });
    for (const raw of [base64, qp]) {
      const { raw: out } = rewriteLinks(raw, (url, i) => wrap(url, i));
      const parsed = await parseMessage(out);
      expect(parsed.html).toContain(`href="${wrap('https://a.example/', 0)}"`);
      for (const line of out.toString('latin1').split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
    }
    expect(rewriteLinks(base64, wrap).raw.toString()).toMatch(/Content-Transfer-Encoding: base64/i);
  });

  it('rewrites a message without MIME headers and keeps UTF-8 text intact', async () => {
    const raw = Buffer.from(
      'From: a@sender.test\r\nSubject: Plain\r\n\r\nGrüße, see https://a.example/ü?q=1\r\n',
      'utf8',
    );
    const { raw: out, rewritten } = rewriteLinks(
      raw,
      (url) => `https://moat.test/l/T?u=${encodeURIComponent(url)}`,
    );
    expect(rewritten).toBe(1);
    const parsed = await parseMessage(out);
    expect(parsed.text).toContain('Grüße, see https://moat.test/l/T?u=');
  });

  it('leaves the same bytes when no link is rewritten, and a forwarded message alone', async () => {
    const raw = await compose({
      text: 'see https://a.example/',
      attachments: [
        {
          filename: 'fwd.eml',
          contentType: 'message/rfc822',
          content: 'Subject: x\r\n\r\nhttps://b.example/',
        },
      ],
    });
    expect(rewriteLinks(raw, () => null).raw).toBe(raw);
    const { raw: out, rewritten } = rewriteLinks(raw, wrap);
    expect(rewritten).toBe(1);
    expect(out.toString()).toContain('https://b.example/');
  });

  it('encodes quoted-printable that decodes back to the same bytes', () => {
    const text = `a=b \t\r\n${'x'.repeat(200)}\r\nend \r\n\u00e9`;
    const encoded = encodeQuotedPrintable(text, '\r\n');
    for (const line of encoded.split('\r\n')) expect(line.length).toBeLessThanOrEqual(76);
    const decoded = encoded
      .replace(/=\r\n/g, '')
      .replace(/=([0-9A-F]{2})/g, (_m, h) => String.fromCharCode(Number.parseInt(h, 16)));
    expect(decoded).toBe(text);
  });
});
