import { constants, inflateSync } from 'node:zlib';
import { type CMapBudget, cmapBudget, type FontDecoder, fontDecoder } from './pdf-fonts.ts';
import { showText } from './pdf-show.ts';

/**
 * The text of a PDF as its pages show it: each page's content streams (and the forms they draw)
 * read for their text-showing operators, strings decoded through their font's ToUnicode map
 * (or as Latin-1 for simple fonts without one). Objects are read as they lie in the file and from
 * its object streams; only uncompressed and FlateDecode streams are read. Work is bounded: the
 * bytes inflated, the streams read, the characters returned.
 */

/** PDFs larger than this are only checked for encryption. */
export const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** Bytes inflated for any one stream (the caller's budget bounds them all together). */
const MAX_STREAM_BYTES = 8 * 1024 * 1024;
const MAX_OBJECTS = 100_000;
const MAX_PAGES = 2_000;
/**
 * Object headers looked at, and characters of object dictionaries kept, per PDF: a malformed file
 * (headers without `endobj`, the same object number over and over) costs at most this much to index.
 * An object without `endobj` ends at the next object header, and at most 64 KiB on.
 */
const MAX_HEADERS = 50_000;
const MAX_DICT_CHARS = 4 * 1024 * 1024;
const MAX_OPEN_DICT = 65_536;

export interface PdfObject {
  dict: string;
  /** Where the stream's bytes lie in the file (null for other objects, and those of object streams). */
  stream: [number, number] | null;
}

export interface PdfFile {
  buffer: Buffer;
  text: string;
  objects: Map<number, PdfObject>;
  /** Bytes that may still be inflated. */
  budget: { bytes: number };
  /** Work left for the fonts' CMaps, shared with the message's other PDFs. */
  cmap: CMapBudget;
}

/** An encrypted PDF names its encryption dictionary in its trailer (or its cross-reference stream). */
export const pdfEncrypted = (text: string) => /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(text);

/** The first position of `token` at or after `from`, remembered so the file is searched once. */
function finder(text: string, token: string): (from: number) => number {
  let at = -2;
  return (from) => {
    if (at !== -1 && at < from) at = text.indexOf(token, from);
    return at;
  };
}

/**
 * Every object of the file as it lies there (a later one of the same number replacing the earlier),
 * and whether indexing stopped at its bounds before the end of the file.
 */
function indexObjects(text: string): { objects: Map<number, PdfObject>; truncated: boolean } {
  const objects = new Map<number, PdfObject>();
  const header = /(\d+)\s+\d+\s+obj\b/g;
  const nextHeader = /\d+\s+\d+\s+obj\b/g;
  const nextStream = finder(text, 'stream');
  const nextEnd = finder(text, 'endobj');
  let headers = 0;
  let dictChars = 0;
  let truncated = false;
  for (let m = header.exec(text); m; m = header.exec(text)) {
    if (objects.size >= MAX_OBJECTS || ++headers > MAX_HEADERS || dictChars > MAX_DICT_CHARS) {
      truncated = true;
      break;
    }
    const start = m.index + m[0].length;
    const end = nextEnd(start);
    const streamAt = nextStream(start);
    if (streamAt === -1 || (end !== -1 && end < streamAt)) {
      let dictEnd = end;
      if (end === -1 || end - start > MAX_OPEN_DICT) {
        nextHeader.lastIndex = start;
        const following = nextHeader.exec(text)?.index ?? text.length;
        dictEnd = Math.min(following, start + MAX_OPEN_DICT, end === -1 ? text.length : end);
      }
      objects.set(Number(m[1]), { dict: text.slice(start, dictEnd), stream: null });
      dictChars += dictEnd - start;
      header.lastIndex = Math.max(dictEnd, start);
      continue;
    }
    const dict = text.slice(start, Math.min(streamAt, start + MAX_OPEN_DICT));
    dictChars += dict.length;
    let dataStart = streamAt + 6;
    if (text[dataStart] === '\r') dataStart += 1;
    if (text[dataStart] === '\n') dataStart += 1;
    const declared = Number(/\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict)?.[1] ?? Number.NaN);
    const fits =
      Number.isInteger(declared) &&
      /^\s*endstream/.test(text.slice(dataStart + declared, dataStart + declared + 12));
    const dataEnd = fits ? dataStart + declared : text.indexOf('endstream', dataStart);
    if (dataEnd === -1) break;
    objects.set(Number(m[1]), { dict, stream: [dataStart, dataEnd] });
    header.lastIndex = dataEnd;
  }
  return { objects, truncated };
}

/** A stream's bytes decoded: as stored, or inflated (FlateDecode) within the budget; null otherwise. */
export function streamBytes(pdf: PdfFile, object: PdfObject | undefined): Buffer | null {
  if (!object?.stream) return null;
  const raw = pdf.buffer.subarray(object.stream[0], object.stream[1]);
  const filter = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(object.dict)?.[1] ?? '';
  const filters = [...filter.matchAll(/\/([A-Za-z0-9]+)/g)].map((f) => f[1]);
  if (filters.length === 0) return raw;
  if (filters.length > 1 || (filters[0] !== 'FlateDecode' && filters[0] !== 'Fl')) return null;
  if (/\/Predictor\s+(?:1\d)/.test(object.dict)) return null;
  const limit = Math.min(MAX_STREAM_BYTES, pdf.budget.bytes);
  if (limit <= 0) return null;
  try {
    // A truncated stream still gives what it holds (sync flush); a larger one than allowed is dropped.
    const bytes = inflateSync(raw, { maxOutputLength: limit, finishFlush: constants.Z_SYNC_FLUSH });
    pdf.budget.bytes -= bytes.length;
    return bytes;
  } catch (error) {
    // A stream that inflates past the limit cost the limit's worth of work: it counts as spent.
    if (error instanceof RangeError) pdf.budget.bytes -= limit;
    return null;
  }
}

/** The objects kept in object streams (PDF 1.5 and later), added where the file has none of that number. */
function addObjectStreams(pdf: PdfFile): void {
  for (const object of [...pdf.objects.values()]) {
    if (!object.stream || !/\/Type\s*\/ObjStm/.test(object.dict)) continue;
    const first = Number(/\/First\s+(\d+)/.exec(object.dict)?.[1]);
    const bytes = streamBytes(pdf, object);
    if (!bytes || !Number.isInteger(first)) continue;
    const data = bytes.toString('latin1');
    const pairs = [...data.slice(0, first).matchAll(/(\d+)\s+(\d+)/g)].map((p) => [
      Number(p[1]),
      Number(p[2]),
    ]);
    pairs.forEach(([number, offset], i) => {
      if (pdf.objects.has(number!) || pdf.objects.size >= MAX_OBJECTS) return;
      const end = i + 1 < pairs.length ? first + pairs[i + 1]![1]! : data.length;
      pdf.objects.set(number!, { dict: data.slice(first + offset!, end), stream: null });
    });
  }
}

/** The value of `/Key` in a dictionary: the text of an inline `<< … >>` or `[ … ]`, or of the object a reference names. */
export function value(pdf: PdfFile, dict: string, key: string): string | null {
  const match = new RegExp(`/${key}(?![A-Za-z0-9])\\s*`).exec(dict);
  if (!match) return null;
  const at = match.index + match[0].length;
  const ref = /^(\d+)\s+\d+\s+R/.exec(dict.slice(at, at + 40));
  if (ref) return pdf.objects.get(Number(ref[1]))?.dict ?? null;
  if (dict.startsWith('<<', at)) return balanced(dict, at, '<<', '>>');
  if (dict[at] === '[') return balanced(dict, at, '[', ']');
  return dict.slice(at, at + 40);
}

/** The text from `at` to the delimiter closing the one opened there. */
function balanced(text: string, at: number, open: string, close: string): string {
  let depth = 0;
  for (let i = at; i < text.length; ) {
    if (text.startsWith(open, i)) {
      depth++;
      i += open.length;
    } else if (text.startsWith(close, i)) {
      depth--;
      i += close.length;
      if (depth === 0) return text.slice(at, i);
    } else i++;
  }
  return text.slice(at);
}

/** `/Name N G R` pairs of a dictionary: each name with the object number it refers to. */
export const references = (dict: string) =>
  [...dict.matchAll(/\/([^\s/<>[\]()]+)\s+(\d+)\s+\d+\s+R/g)].map((m) => [m[1]!, Number(m[2])] as const);

/** A page's (or form's) resources: its own, or those it inherits from its parents. */
function resourcesOf(pdf: PdfFile, dict: string): string {
  let node: string | null = dict;
  for (let level = 0; node && level < 16; level++) {
    const resources = value(pdf, node, 'Resources');
    if (resources) return resources;
    const parent = /\/Parent\s+(\d+)\s+\d+\s+R/.exec(node);
    node = parent ? (pdf.objects.get(Number(parent[1]))?.dict ?? null) : null;
  }
  return '';
}

/** The fonts a content stream may select with `Tf`, by resource name. */
function fontsOf(pdf: PdfFile, resources: string, cache: Map<number, FontDecoder>): Map<string, FontDecoder> {
  const fonts = new Map<string, FontDecoder>();
  for (const [name, number] of references(value(pdf, resources, 'Font') ?? '')) {
    let decoder = cache.get(number);
    if (!decoder) {
      decoder = fontDecoder(
        pdf.objects.get(number)?.dict ?? '',
        (n) => streamBytes(pdf, pdf.objects.get(n)),
        pdf.cmap,
      );
      cache.set(number, decoder);
    }
    fonts.set(name, decoder);
  }
  return fonts;
}

interface Reader {
  pdf: PdfFile;
  fonts: Map<number, FontDecoder>;
  out: { parts: string[]; length: number; max: number };
  seenForms: Set<number>;
}

/** One page or form: its content streams shown, then the forms its resources hold (two levels deep). */
function readContent(reader: Reader, dict: string, contents: string[], depth: number): void {
  const { pdf, out } = reader;
  const resources = resourcesOf(pdf, dict);
  const fonts = fontsOf(pdf, resources, reader.fonts);
  const content = contents.join('\n');
  if (content) showText(content, fonts, out);
  if (depth >= 2) return;
  for (const [, number] of references(value(pdf, resources, 'XObject') ?? '')) {
    const form = pdf.objects.get(number);
    if (!form || reader.seenForms.has(number) || !/\/Subtype\s*\/Form/.test(form.dict)) continue;
    reader.seenForms.add(number);
    const bytes = streamBytes(pdf, form);
    if (bytes) readContent(reader, form.dict, [bytes.toString('latin1')], depth + 1);
  }
}

/** A page's content: one stream, or an array of them read as one. */
function pageContents(pdf: PdfFile, page: string): string[] {
  const contents = /\/Contents\s*(\[[^\]]*\]|\d+\s+\d+\s+R)/.exec(page)?.[1] ?? '';
  return [...contents.matchAll(/(\d+)\s+\d+\s+R/g)]
    .map((ref) => streamBytes(pdf, pdf.objects.get(Number(ref[1])))?.toString('latin1'))
    .filter((c): c is string => c !== undefined);
}

/** Whether a file too large to read through is encrypted: its first and last MiB say. */
function largePdfEncrypted(buffer: Buffer): boolean {
  const edge = 1024 * 1024;
  return (
    pdfEncrypted(buffer.toString('latin1', 0, edge)) ||
    pdfEncrypted(buffer.toString('latin1', Math.max(0, buffer.length - edge)))
  );
}

/** What was read of a PDF. */
export interface PdfReading {
  encrypted: boolean;
  text: string;
  /** The file could not be read through: too large, or its indexing or font work bounds were reached. */
  incomplete: boolean;
  /** Objects found in the file: none means it is not a PDF that can be parsed. */
  objects: number;
}

/**
 * A PDF's encryption, and the text of its pages (at most `maxChars` characters; empty for an
 * encrypted, damaged or too large file). Inflating takes from `budget`, and reading fonts' CMaps
 * from `cmap`, both shared with the rest of the message.
 */
export function readPdf(
  bytes: Uint8Array,
  maxChars: number,
  budget: { bytes: number },
  cmap: CMapBudget = cmapBudget(),
): PdfReading {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length > MAX_PDF_BYTES) {
    return { encrypted: largePdfEncrypted(buffer), text: '', incomplete: true, objects: 0 };
  }
  const text = buffer.toString('latin1');
  if (pdfEncrypted(text)) return { encrypted: true, text: '', incomplete: false, objects: 0 };
  const cmapSpentBefore = cmap.exhausted;
  const { objects, truncated } = indexObjects(text);
  const pdf: PdfFile = { buffer, text, objects, budget, cmap };
  addObjectStreams(pdf);
  const reader: Reader = {
    pdf,
    fonts: new Map(),
    out: { parts: [], length: 0, max: maxChars },
    seenForms: new Set(),
  };
  let pages = 0;
  for (const object of pdf.objects.values()) {
    if (!/\/Type\s*\/Page(?![A-Za-z])/.test(object.dict)) continue;
    if (++pages > MAX_PAGES || reader.out.length >= maxChars) break;
    readContent(reader, object.dict, pageContents(pdf, object.dict), 0);
  }
  // A file whose page tree cannot be read: every stream that shows text, in file order.
  if (pages === 0) {
    for (const object of pdf.objects.values()) {
      if (reader.out.length >= maxChars) break;
      if (!object.stream || /\/(?:Type|Subtype|Length1|Length2)\b/.test(object.dict)) continue;
      const content = streamBytes(pdf, object)?.toString('latin1');
      if (content?.includes('BT')) showText(content, new Map(), reader.out);
    }
  }
  return {
    encrypted: false,
    text: reader.out.parts.join('').slice(0, maxChars),
    // Fonts read while the shared budget was (or became) spent were skipped: the text may be missing.
    incomplete: truncated || (cmap.exhausted && (!cmapSpentBefore || reader.fonts.size > 0)),
    objects: pdf.objects.size,
  };
}
