import { gunzipSync } from 'node:zlib';
import { type UnzipBudget, unzipBounded } from '../../lib/unzip-bounded.ts';
import { textOfHtml } from '../../mail/html-text.ts';
import type { ParsedMessage } from '../../mail/parse.ts';
import { encryptedArchive } from '../lures/archives.ts';
import { encryptedOffice, extensionOf, placeName, sniffKind } from './files.ts';
import { OFFICE_PARTS, officeText } from './office.ts';
import { type CMapBudget, cmapBudget } from './pdf-fonts.ts';
import { readPdf } from './pdf-text.ts';

/** A file of the message: an attachment, or a file inside an attached archive. */
export interface DlpFile {
  /** The attachment's name, or the archive's place and the entry's path (`docs.zip/hr/payroll.xlsx`). */
  place: string;
  filename: string;
  contentType: string;
  extension: string;
  /** What the bytes are (`pdf`, `zip`, `docx`, `exe`…), null when no signature says. */
  kind: string | null;
  /** Locked with a password: nothing inside can be checked. */
  encrypted: boolean;
}

/** What DLP reads of a message: its text, where each piece comes from, and its files. */
export interface DlpContent {
  subject: string;
  body: string;
  /** The text of attachments (and of files inside archives), by place. */
  parts: Array<{ place: string; text: string }>;
  files: DlpFile[];
  /**
   * Places that could not be checked in full: a file past the message's bounds (archive entries,
   * inflated bytes, nesting, text kept, PDF work), an archive that is not opened or whose listing
   * disagrees with its contents, `body` when the message's text was cut short. DLP treats them as
   * it treats locked files.
   */
  unchecked: string[];
}

/** Text kept of one file, and of a whole message (subject and body included). */
export const MAX_PART_CHARS = 2 * 1024 * 1024;
export const MAX_TEXT_CHARS = 8 * 1024 * 1024;
/** Archives inside archives are opened this deep (an attachment is at depth 0). */
const MAX_DEPTH = 2;
/** Entries and inflated bytes of all the message's archives, documents and PDFs together (zip bomb safe). */
const MAX_ENTRIES = 200;
const MAX_INFLATED_BYTES = 32 * 1024 * 1024;
/** Files listed for one message (names an archive lists included). */
const MAX_FILES = 1_000;

/** Files read as text when no signature says otherwise: by name, or by content type. */
const TEXT_EXTENSIONS = new Set(
  (
    'txt text csv tsv json ndjson xml html htm xhtml md log eml ics vcf yaml yml ini cfg conf config env ' +
    'properties toml sql pem key crt cer asc ppk pub sh bash ps1 py js ts rb go java cs php tf tfvars'
  ).split(' '),
);
const TEXT_TYPES =
  /^(?:text\/|message\/rfc822|application\/(?:[\w.-]+\+)?(?:json|xml|csv|yaml|x-yaml|sql|javascript)\b)/i;

interface Reading {
  content: DlpContent;
  /** Characters of text that may still be kept. */
  chars: number;
  unzip: UnzipBudget;
  /** Work left for the CMaps of the message's PDFs. */
  cmap: CMapBudget;
}

/** A place that could not be checked in full, listed once. */
function uncheck(reading: Reading, place: string): void {
  if (!reading.content.unchecked.includes(place)) reading.content.unchecked.push(place);
}

/** Archive kinds whose entries are not opened: what they hold cannot be checked. */
const UNOPENED_ARCHIVES = new Set(['tar', '7z', 'rar', 'bz2', 'xz']);

function addText(reading: Reading, place: string, text: string): void {
  const kept = text.slice(0, Math.min(MAX_PART_CHARS, reading.chars));
  if (!kept) return;
  reading.chars -= kept.length;
  reading.content.parts.push({ place, text: kept });
  // The message's text bound was reached in this file: what follows of it goes unchecked.
  if (reading.chars <= 0) uncheck(reading, place);
}

/** Numeric character references (`&#160;`, `&#x41;`) as the characters they stand for. */
export function decodeNumericEntities(text: string): string {
  return text.replace(/&#(?:(\d{1,7})|[xX]([0-9A-Fa-f]{1,6}));/g, (entity, dec, hex) => {
    const code = dec ? Number(dec) : Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });
}

/** An HTML text as a reader sees it: tags dropped, named and numeric entities decoded. */
const htmlText = (html: string, max?: number) => decodeNumericEntities(textOfHtml(html, max));

/**
 * RTF's text, crudely: hex escapes decoded, control words and group braces dropped, escaped
 * braces and backslashes kept. Enough for the digits and words DLP looks for.
 */
export function rtfText(rtf: string): string {
  return (
    rtf
      .replace(/\\'([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
      // `\uN` (a signed 16-bit code) and its one fallback character.
      .replace(/\\u(-?\d{1,5}) ?(?:\\'[0-9a-fA-F]{2}|\?)?/g, (_, n: string) =>
        String.fromCharCode((Number(n) + 65_536) % 65_536),
      )
      .replace(/\\(?:par|line|row|cell|tab)\b-?\d* ?/g, '\n')
      .replace(/\\[a-zA-Z]{1,32}-?\d{0,10} ?/g, '')
      .replace(/\\([\\{}])|[{}]/g, (_, escaped: string | undefined) => escaped ?? '')
      .replace(/\\[^a-zA-Z]/g, '')
  );
}

/** No NUL and hardly any control characters in the first 4 KB: text, whatever the name. */
function looksLikeText(bytes: Uint8Array): boolean {
  const head = bytes.subarray(0, 4096);
  let control = 0;
  for (const byte of head) {
    if (byte === 0) return false;
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12 && byte !== 27) control++;
  }
  return head.length > 0 && control * 20 < head.length;
}

/** A text file's text: UTF-16 when its byte order mark says, UTF-8 (Latin-1 when not valid UTF-8) otherwise; HTML without its tags, RTF without its control words. */
function plainText(file: DlpFile, bytes: Uint8Array, max: number): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, max * 2));
  const utf16 = buffer[0] === 0xff && buffer[1] === 0xfe;
  const utf8 = utf16 ? '' : buffer.toString('utf8');
  // Not UTF-8 (a replacement character before the last few, which a cut may split): Latin-1.
  const bad = utf8.indexOf('\uFFFD');
  const decoded = utf16
    ? buffer.toString('utf16le', 2)
    : bad !== -1 && bad < utf8.length - 3
      ? buffer.toString('latin1')
      : utf8;
  const html = /^html?$|^xhtml$/.test(file.extension) || /^text\/html/i.test(file.contentType);
  if (html) return htmlText(decoded, max * 2);
  return file.kind === 'rtf' ? rtfText(decoded) : decoded;
}

/** A locked archive's encryption; a damaged archive whose headers cannot be walked counts as none. */
function lockedArchive(bytes: Uint8Array) {
  try {
    return encryptedArchive(bytes);
  } catch {
    return null;
  }
}

function listFile(reading: Reading, file: DlpFile): boolean {
  if (reading.content.files.length >= MAX_FILES) return false;
  reading.content.files.push(file);
  return true;
}

/** An entry an archive lists but that was not read (locked, or past the budget): known by its name only. */
function listName(reading: Reading, archive: string, name: string): void {
  if (name.endsWith('/')) return;
  const place = placeName(`${archive}/${name}`);
  listFile(reading, {
    place,
    filename: name,
    contentType: '',
    extension: extensionOf(name),
    kind: null,
    encrypted: false,
  });
}

/**
 * The files of a zip, read in turn (the budget shared with the whole message), and the names left
 * unread. A zip that cannot be walked, runs past the budget, or whose directory disagrees with its
 * entries is unchecked.
 */
function readZip(reading: Reading, place: string, bytes: Uint8Array, depth: number): void {
  let unzipped: ReturnType<typeof unzipBounded>;
  try {
    unzipped = unzipBounded(bytes, reading.unzip);
  } catch {
    uncheck(reading, place);
    return;
  }
  if (unzipped.exceeded || unzipped.mismatch) uncheck(reading, place);
  const read = new Set<string>();
  for (const [name, data] of unzipped.entries) {
    if (name.endsWith('/')) continue;
    read.add(name);
    readFile(reading, placeName(`${place}/${name}`), name, '', data, depth + 1);
  }
  for (const name of unzipped.listed) if (!read.has(name)) listName(reading, place, name);
}

/**
 * The one file of a gzip stream, inflated within the budget (an entry of it, and at most 8 MiB:
 * a stream that inflates to more is passed over, its cost counted all the same).
 */
function readGzip(reading: Reading, file: DlpFile, bytes: Uint8Array, depth: number): void {
  const limit = Math.min(reading.unzip.bytes, MAX_PART_CHARS * 4);
  if (limit <= 0 || reading.unzip.entries <= 0) {
    uncheck(reading, file.place);
    return;
  }
  reading.unzip.entries -= 1;
  let inner: Buffer;
  try {
    inner = gunzipSync(bytes, { maxOutputLength: limit });
  } catch {
    reading.unzip.bytes -= limit;
    uncheck(reading, file.place);
    return;
  }
  reading.unzip.bytes -= inner.length;
  const name = file.filename.replace(/\.t?gz$/i, (ext) => (ext.toLowerCase() === '.tgz' ? '.tar' : ''));
  const place = placeName(`${file.place}/${name.slice(name.lastIndexOf('/') + 1)}`);
  readFile(reading, place, name, '', inner, depth + 1);
}

/**
 * An Office or OpenDocument file's text. A password-protected OpenDocument keeps its manifest in
 * the clear and says there how each part is encrypted: it is marked locked, its parts not read.
 */
function readOffice(reading: Reading, file: DlpFile, bytes: Uint8Array, max: number): void {
  let entries: Array<[string, Uint8Array]> = [];
  try {
    const unzipped = unzipBounded(bytes, reading.unzip);
    entries = unzipped.entries;
    if (unzipped.exceeded || unzipped.mismatch) uncheck(reading, file.place);
  } catch {
    uncheck(reading, file.place);
  }
  const manifest = entries.find(([name]) => name === 'META-INF/manifest.xml')?.[1];
  if (manifest && Buffer.from(manifest).includes('encryption-data')) {
    file.encrypted = true;
    return;
  }
  addText(reading, file.place, officeText(file.kind!, entries, max));
}

/** One file: listed with what it is and whether it is locked; its text kept; an archive opened. */
function readFile(
  reading: Reading,
  place: string,
  filename: string,
  contentType: string,
  bytes: Uint8Array,
  depth: number,
): void {
  const kind = sniffKind(bytes);
  const locked = kind === 'zip' || kind === '7z' || kind === 'rar' ? lockedArchive(bytes) : null;
  const pdf =
    kind === 'pdf'
      ? readPdf(bytes, Math.min(MAX_PART_CHARS, reading.chars), reading.unzip, reading.cmap)
      : null;
  const encrypted = locked !== null || pdf?.encrypted === true || encryptedOffice(filename, bytes);
  const file: DlpFile = { place, filename, contentType, extension: extensionOf(filename), kind, encrypted };
  if (!listFile(reading, file)) return;
  const max = Math.min(MAX_PART_CHARS, reading.chars);
  if (locked) for (const name of locked.entries) listName(reading, place, name);
  if (encrypted) return;
  if (max <= 0) {
    // The message's text bound is spent: whatever this file holds goes unread.
    if (bytes.length > 0) uncheck(reading, place);
    return;
  }
  if (kind && UNOPENED_ARCHIVES.has(kind)) uncheck(reading, place);
  if (pdf?.incomplete) uncheck(reading, place);
  if (pdf && pdf.objects > 0) addText(reading, place, pdf.text);
  else if (kind && OFFICE_PARTS[kind]) readOffice(reading, file, bytes, max);
  else if (kind === 'zip' || kind === 'gz') {
    if (depth >= MAX_DEPTH) uncheck(reading, place);
    else if (kind === 'zip') readZip(reading, place, bytes, depth);
    else readGzip(reading, file, bytes, depth);
  } else if (
    kind === null
      ? TEXT_EXTENSIONS.has(file.extension) || TEXT_TYPES.test(contentType) || looksLikeText(bytes)
      : // A kind whose text is not extracted (or a PDF that does not parse) but whose bytes are
        // text: a CSV starting `MZ,`, a file mentioning `%PDF-`, RTF. Its text is read all the same.
        looksLikeText(bytes)
  ) {
    addText(reading, place, plainText(file, bytes, max));
  }
}

/**
 * The body as recipients may see it: the text part and the text of the HTML part, both (a
 * client shows either). Lines of the HTML's text the text part already holds are left out, so
 * keywords are not counted twice.
 */
function bodyOf(parsed: ParsedMessage): string {
  const text = parsed.text ?? '';
  const html = parsed.html ? htmlText(parsed.html) : '';
  if (!html) return text;
  if (!text || html === text) return html;
  const squash = (line: string) => line.replace(/\s+/g, ' ').trim();
  if (squash(text) === squash(html)) return text;
  const known = new Set(text.split('\n').map(squash));
  const extra = html.split('\n').filter((line) => {
    const key = squash(line);
    return key !== '' && !known.has(key);
  });
  return extra.length === 0 ? text : `${text}\n${extra.join('\n')}`;
}

/**
 * What DLP reads of a parsed message: the subject, the body (the text part and the text of
 * the HTML part), the text of each attachment (text files, PDF, Word, Excel, PowerPoint,
 * OpenDocument, and the files inside zip and gzip archives), and every file with its sniffed kind
 * and whether it is locked. Bounded: 2 MiB of text per file, 8 MiB per message, archives two deep,
 * 200 archive entries and 32 MiB inflated per message.
 */
export function dlpContentOf(parsed: ParsedMessage): DlpContent {
  const content: DlpContent = { subject: '', body: '', parts: [], files: [], unchecked: [] };
  const reading: Reading = {
    content,
    chars: MAX_TEXT_CHARS,
    unzip: { bytes: MAX_INFLATED_BYTES, entries: MAX_ENTRIES },
    cmap: cmapBudget(),
  };
  content.subject = parsed.subject.slice(0, reading.chars);
  reading.chars -= content.subject.length;
  const body = bodyOf(parsed);
  content.body = body.slice(0, Math.min(reading.chars, MAX_TEXT_CHARS));
  if (content.body.length < body.length) uncheck(reading, 'body');
  reading.chars -= content.body.length;
  for (const attachment of parsed.attachments) {
    const name = placeName(attachment.filename);
    readFile(reading, name, attachment.filename, attachment.contentType, attachment.content, 0);
  }
  return content;
}
