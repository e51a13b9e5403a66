/**
 * The text of Office Open XML (Word, Excel, PowerPoint) and OpenDocument files, from the XML
 * parts that hold what a reader sees: text runs, shared strings and cell values, slides and
 * notes. Paragraphs, rows and line breaks become new lines, cells and tabs tabs, so values of
 * different cells never run together.
 */

interface XmlReading {
  /** Elements (local names) whose text is kept, with what they hold. */
  text: Set<string>;
  /** What the end of an element (or an empty element) writes. */
  breaks: Record<string, string>;
}

const WORD: XmlReading = {
  text: new Set(['t', 'delText']),
  breaks: { p: '\n', tr: '\n', br: '\n', cr: '\n', tc: '\t', tab: '\t' },
};
const SPREADSHEET: XmlReading = {
  // Cell values (`v`) of numbers and formula results; those of shared strings are indexes, skipped.
  text: new Set(['t', 'v']),
  breaks: { si: '\n', row: '\n', c: '\t' },
};
const SLIDES: XmlReading = { text: new Set(['t']), breaks: { p: '\n', br: '\n', tab: '\t' } };
const OPEN_DOCUMENT: XmlReading = {
  // Paragraphs and headings hold all the text (spans, links, notes, table cells' paragraphs).
  text: new Set(['p', 'h']),
  breaks: { p: '\n', h: '\n', 'line-break': '\n', 'table-row': '\n', 'table-cell': '\t', tab: '\t', s: ' ' },
};

/**
 * The parts of each kind of document that hold its text, and how their XML is read. For Office
 * Open XML every XML part under the document's folder is read (a part can be renamed and still
 * open, its name being whatever the package's relationships say); the entry budget bounds them.
 */
export const OFFICE_PARTS: Record<string, { parts: RegExp; reading: XmlReading }> = {
  docx: { parts: /^word\/.+\.xml$/i, reading: WORD },
  xlsx: { parts: /^xl\/.+\.xml$/i, reading: SPREADSHEET },
  pptx: { parts: /^ppt\/.+\.xml$/i, reading: SLIDES },
  odt: { parts: /^content\.xml$/, reading: OPEN_DOCUMENT },
  ods: { parts: /^content\.xml$/, reading: OPEN_DOCUMENT },
  odp: { parts: /^content\.xml$/, reading: OPEN_DOCUMENT },
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decodeEntities = (text: string) =>
  text.replace(/&(?:(amp|lt|gt|quot|apos)|#(\d{1,7})|#x([0-9A-Fa-f]{1,6}));/g, (entity, named, dec, hex) => {
    if (named) return ENTITIES[named]!;
    const code = dec ? Number(dec) : Number.parseInt(hex, 16);
    return code <= 0x10ffff ? String.fromCodePoint(code) : entity;
  });

/** An element's local name (`w:t` → `t`) from the text of its tag. */
function localName(tag: string): string {
  const start = tag[0] === '/' ? 1 : 0;
  let end = start;
  while (end < tag.length && !' \t\r\n/>'.includes(tag[end]!)) end++;
  const name = tag.slice(start, end);
  return name.slice(name.indexOf(':') + 1);
}

/** The text of one XML part, in one pass over its tags, at most `max` characters. */
export function xmlText(xml: string, reading: XmlReading, max: number): string {
  const out: string[] = [];
  let length = 0;
  let inside = 0;
  let sharedCell = false;
  for (let i = 0; i < xml.length && length < max; ) {
    const open = xml.indexOf('<', i);
    const textEnd = open === -1 ? xml.length : open;
    if (inside > 0 && textEnd > i) {
      out.push(xml.slice(i, textEnd));
      length += textEnd - i;
    }
    if (open === -1) break;
    const close = xml.indexOf('>', open + 1);
    if (close === -1) break;
    i = close + 1;
    const tag = xml.slice(open + 1, close);
    if (tag[0] === '?' || tag[0] === '!') continue;
    const name = localName(tag);
    const closing = tag[0] === '/';
    const empty = !closing && tag.endsWith('/');
    if (name === 'c' && !closing) sharedCell = /\st="s"/.test(tag);
    if (reading.text.has(name) && !(name === 'v' && sharedCell) && !empty) inside += closing ? -1 : 1;
    if (inside < 0) inside = 0;
    const separator = reading.breaks[name];
    if (separator && (closing || empty)) {
      out.push(separator);
      length += 1;
    }
  }
  return decodeEntities(out.join('')).slice(0, max);
}

/** The text of an Office document from its entries (name, bytes), at most `max` characters. */
export function officeText(kind: string, entries: Array<[string, Uint8Array]>, max: number): string {
  const office = OFFICE_PARTS[kind];
  if (!office) return '';
  const parts = entries
    .filter(([name]) => office.parts.test(name))
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
  const texts: string[] = [];
  let length = 0;
  for (const [, bytes] of parts) {
    if (length >= max) break;
    const text = xmlText(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'),
      office.reading,
      max - length,
    );
    texts.push(text);
    length += text.length + 1;
  }
  return texts.join('\n').slice(0, max);
}
