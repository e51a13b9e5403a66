import { endOfText, tokenAt } from './banner.ts';

/*
 * Links rewritten in a delivered copy (issue 36, click-time protection): every `href` of an
 * <a> or <area> in the HTML parts and every http(s) URL of the text parts, in every text part the
 * reader may see, are handed to `rewrite`, which gives the link to put instead (or null to keep
 * it). The message's structure, headers and other parts stay byte for byte as they came; only a
 * rewritten part is encoded anew (base64 stays base64, anything else becomes quoted-printable, so
 * no line grows past SMTP's limit). Attachments, forwarded messages (message/rfc822) and parts in
 * a charset that is not ASCII-compatible are left alone.
 */

/** How deep multiparts are followed (a real message nests three or four). */
const MAX_DEPTH = 16;
/** The most links rewritten in one copy; the rest are left as they are. */
const MAX_LINKS = 1_000;
/** Text parts larger than this are left as they are (no reader's message is that large). */
const MAX_PART_BYTES = 8 * 1024 * 1024;
/** Raw text elements: their content is not markup. */
const RAW_TEXT = new Set([
  'script',
  'style',
  'textarea',
  'title',
  'xmp',
  'noframes',
  'noembed',
  'iframe',
  'plaintext',
]);
const TEXT_URL = /\bhttps?:\/\/[^\s<>"'`{}|\\^[\]]{1,4096}/gi;
const UNSAFE_CHARSETS = /^(?:utf-?(?:16|32)|ucs-?[24]|utf-?7)/i;

export type RewriteUrl = (url: string, index: number) => string | null;

interface Header {
  name: string;
  value: string;
}

/** A message (or part) split at its blank line, in latin1 so that every byte is one character. */
function split(part: string): { head: string; eol: string; body: string } | null {
  const crlf = part.indexOf('\r\n\r\n');
  const lf = part.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return null;
  if (crlf !== -1 && (lf === -1 || crlf <= lf))
    return { head: part.slice(0, crlf + 2), eol: '\r\n', body: part.slice(crlf + 4) };
  return { head: part.slice(0, lf + 1), eol: '\n', body: part.slice(lf + 2) };
}

function headersOf(head: string): Header[] {
  const headers: Header[] = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && headers.length > 0) headers[headers.length - 1]!.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0)
        headers.push({
          name: line.slice(0, colon).trim().toLowerCase(),
          value: line.slice(colon + 1).trim(),
        });
    }
  }
  return headers;
}

/** A header's value and its parameters (RFC 2045 §5.1), names lower-case. */
function parameters(value: string): { value: string; params: Map<string, string> } {
  const params = new Map<string, string>();
  const [first, ...rest] = value.split(';');
  for (const item of rest) {
    const eq = item.indexOf('=');
    if (eq < 0) continue;
    let v = item.slice(eq + 1).trim();
    if (v.startsWith('"')) v = v.slice(1, v.indexOf('"', 1) < 0 ? undefined : v.indexOf('"', 1));
    params.set(item.slice(0, eq).trim().toLowerCase(), v);
  }
  return { value: (first ?? '').trim().toLowerCase(), params };
}

function decodeQuotedPrintable(body: string): string {
  return body.replace(/=(?:\r?\n|([0-9A-Fa-f]{2}))/g, (_m, hex: string | undefined) =>
    hex ? String.fromCharCode(Number.parseInt(hex, 16)) : '',
  );
}

/** Quoted-printable (RFC 2045 §6.7) of latin1 text, lines at most 76 characters. */
export function encodeQuotedPrintable(text: string, eol: string): string {
  const out: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    let encoded = '';
    let width = 0;
    for (let i = 0; i < line.length; i++) {
      const code = line.charCodeAt(i);
      const last = i === line.length - 1;
      const literal = (code >= 33 && code <= 126 && code !== 61) || ((code === 32 || code === 9) && !last);
      const piece = literal ? line[i]! : `=${code.toString(16).toUpperCase().padStart(2, '0')}`;
      if (width + piece.length > 75) {
        encoded += `=${eol}`;
        width = 0;
      }
      encoded += piece;
      width += piece.length;
    }
    out.push(encoded);
  }
  return out.join(eol);
}

function encodeBase64(text: string, eol: string): string {
  const b64 = Buffer.from(text, 'latin1').toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return lines.join(eol) + eol;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
/** An attribute value as the HTML parser reads it: character references decoded (the common ones). */
function decodeAttribute(value: string): string {
  return value.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8});?/gi, (match, ref: string) => {
    if (ref[0] === '#') {
      const code =
        ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code < 0x110000 ? String.fromCodePoint(code) : match;
    }
    return ENTITIES[ref.toLowerCase()] ?? match;
  });
}
const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/** The span of the `href` value in a tag (`html.slice(start, end)` is the whole tag), or null. */
function hrefSpan(html: string, start: number, end: number): { from: number; to: number } | null {
  let i = start + 1;
  while (i < end && !/[\s/>]/.test(html[i]!)) i++;
  while (i < end) {
    while (i < end && /[\s/]/.test(html[i]!)) i++;
    if (i >= end || html[i] === '>') return null;
    const nameStart = i;
    i++;
    while (i < end && !/[\s/>=]/.test(html[i]!)) i++;
    const name = html.slice(nameStart, i).toLowerCase();
    while (i < end && /\s/.test(html[i]!)) i++;
    if (html[i] !== '=') continue;
    i++;
    while (i < end && /\s/.test(html[i]!)) i++;
    let from = i;
    let to: number;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      from = i + 1;
      const close = html.indexOf(quote, from);
      to = close === -1 || close > end ? end : close;
      i = to + 1;
    } else {
      while (i < end && !/[\s>]/.test(html[i]!)) i++;
      to = i;
    }
    // The first href counts, as in the HTML parser; a later one is ignored.
    if (name === 'href')
      return {
        from: quote === '"' || quote === "'" ? from - 1 : from,
        to: quote === '"' || quote === "'" ? to + 1 : to,
      };
  }
  return null;
}

interface Counter {
  next: number;
}

/** Only web links are rewritten: http and https, as the reader's browser would read them. */
function webUrl(raw: string): string | null {
  const trimmed = raw.trim();
  if (!/^https?:\/\//i.test(trimmed)) return null;
  try {
    return new URL(trimmed).href === '' ? null : trimmed;
  } catch {
    return null;
  }
}

function rewriteHtml(html: string, rewrite: RewriteUrl, counter: Counter): string {
  const lower = html.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  let out = '';
  let copied = 0;
  let at = 0;
  while (at < html.length && counter.next < MAX_LINKS) {
    const token = tokenAt(html, at);
    at = Math.max(token.end, at + 1);
    if (token.kind !== 'start') continue;
    if (RAW_TEXT.has(token.name)) {
      at = endOfText(lower, token.name, token.end);
      continue;
    }
    if (token.name !== 'a' && token.name !== 'area') continue;
    const span = hrefSpan(html, token.start, token.end);
    if (!span) continue;
    const value = html.slice(span.from, span.to).replace(/^["']|["']$/g, '');
    const url = webUrl(decodeAttribute(value));
    if (!url) continue;
    const replaced = rewrite(url, counter.next);
    if (replaced === null) continue;
    counter.next++;
    out += `${html.slice(copied, span.from)}"${escapeAttribute(replaced)}"`;
    copied = span.to;
  }
  return copied === 0 ? html : out + html.slice(copied);
}

/** A URL of plain text ends before the punctuation that follows it in a sentence. */
const TRAILING = /[.,;:!?)\]]+$/;

function rewriteText(text: string, rewrite: RewriteUrl, counter: Counter): string {
  return text.replace(TEXT_URL, (match) => {
    if (counter.next >= MAX_LINKS) return match;
    const tail = TRAILING.exec(match)?.[0] ?? '';
    const url = webUrl(match.slice(0, match.length - tail.length));
    if (!url) return match;
    const replaced = rewrite(url, counter.next);
    if (replaced === null) return match;
    counter.next++;
    return replaced + tail;
  });
}

/** A header block with its Content-Transfer-Encoding set to `encoding`. */
function withEncoding(head: string, eol: string, encoding: string): string {
  const lines = head.split(/\r?\n/);
  const kept: string[] = [];
  let skipping = false;
  for (const line of lines) {
    if (skipping && /^[ \t]/.test(line)) continue;
    skipping = /^content-transfer-encoding\s*:/i.test(line);
    if (!skipping) kept.push(line);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  kept.push(`Content-Transfer-Encoding: ${encoding}`);
  return kept.join(eol) + eol;
}

function rewritePart(
  part: string,
  rewrite: RewriteUrl,
  counter: Counter,
  depth: number,
  top: boolean,
): string {
  const pieces = split(part);
  if (!pieces || depth > MAX_DEPTH) return part;
  const headers = headersOf(pieces.head);
  const header = (name: string) => headers.find((h) => h.name === name)?.value;
  const type = parameters(header('content-type') ?? 'text/plain');
  const disposition = parameters(header('content-disposition') ?? '').value;
  if (type.value.startsWith('multipart/')) {
    const boundary = type.params.get('boundary');
    if (!boundary) return part;
    return pieces.head + pieces.eol + rewriteMultipart(pieces.body, boundary, rewrite, counter, depth);
  }
  const isHtml = type.value === 'text/html';
  if ((!isHtml && type.value !== 'text/plain') || disposition === 'attachment') return part;
  if (UNSAFE_CHARSETS.test(type.params.get('charset') ?? '')) return part;
  if (pieces.body.length > MAX_PART_BYTES) return part;
  const encoding = (header('content-transfer-encoding') ?? '7bit').toLowerCase();
  const decoded =
    encoding === 'base64'
      ? Buffer.from(pieces.body.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('latin1')
      : encoding === 'quoted-printable'
        ? decodeQuotedPrintable(pieces.body)
        : pieces.body;
  const before = counter.next;
  const rewritten = isHtml ? rewriteHtml(decoded, rewrite, counter) : rewriteText(decoded, rewrite, counter);
  if (counter.next === before) return part;
  // A message without MIME headers of its own is text/plain in US-ASCII: it gets them now.
  const head =
    top && !header('mime-version')
      ? `${pieces.head.replace(/(\r?\n)?$/, '')}${pieces.eol}MIME-Version: 1.0${pieces.eol}`
      : pieces.head;
  return encoding === 'base64'
    ? head + pieces.eol + encodeBase64(rewritten, pieces.eol)
    : withEncoding(head, pieces.eol, 'quoted-printable') +
        pieces.eol +
        encodeQuotedPrintable(rewritten, pieces.eol);
}

function rewriteMultipart(
  body: string,
  boundary: string,
  rewrite: RewriteUrl,
  counter: Counter,
  depth: number,
): string {
  const delimiter = `--${boundary}`;
  // Every delimiter line: at the start of the body or after a line break.
  const marks: number[] = [];
  for (let i = body.indexOf(delimiter); i !== -1; i = body.indexOf(delimiter, i + delimiter.length)) {
    if (i === 0 || body[i - 1] === '\n') marks.push(i);
  }
  if (marks.length < 2) return body;
  let out = body.slice(0, marks[0]);
  for (let m = 0; m < marks.length; m++) {
    const at = marks[m]!;
    const lineEnd = body.indexOf('\n', at);
    const line = body.slice(at, lineEnd === -1 ? body.length : lineEnd + 1);
    out += line;
    if (body.startsWith(`${delimiter}--`, at) || lineEnd === -1) {
      out += body.slice(at + line.length);
      return out;
    }
    const next = marks[m + 1] ?? body.length;
    // The line break before the next delimiter belongs to the delimiter (RFC 2046 §5.1.1).
    let partEnd = next;
    if (body[partEnd - 1] === '\n') partEnd--;
    if (body[partEnd - 1] === '\r') partEnd--;
    out += rewritePart(body.slice(lineEnd + 1, partEnd), rewrite, counter, depth + 1, false);
    out += body.slice(partEnd, next);
  }
  return out;
}

/** The message with its links rewritten, and how many were; the same bytes when none were. */
export function rewriteLinks(raw: Buffer, rewrite: RewriteUrl): { raw: Buffer; rewritten: number } {
  const counter: Counter = { next: 0 };
  const text = raw.toString('latin1');
  const out = rewritePart(text, rewrite, counter, 0, true);
  return counter.next === 0
    ? { raw, rewritten: 0 }
    : { raw: Buffer.from(out, 'latin1'), rewritten: counter.next };
}
