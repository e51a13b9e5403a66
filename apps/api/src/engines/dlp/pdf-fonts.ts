/**
 * How a PDF font's string bytes become text: through its ToUnicode map (what copy and paste in a
 * viewer uses), or as Latin-1 for a simple font without one (WinAnsi and the standard encodings
 * agree with it on letters and digits). A composite font without a map shows glyph numbers that
 * say nothing: its strings are not read.
 */
export interface FontDecoder {
  /** Bytes per character code. */
  width: 1 | 2;
  map: Map<number, string> | null;
  readable: boolean;
}

export const LATIN1_FONT: FontDecoder = { width: 1, map: null, readable: true };
const UNREADABLE_FONT: FontDecoder = { width: 2, map: null, readable: false };

/** Codes one map may hold (a 2-byte code space has this many). */
const MAX_CODES = 65_536;

/** The UTF-16 code units of a hex string (`<00410042>` → `AB`). */
function units(hex: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 4 <= hex.length; i += 4) out.push(Number.parseInt(hex.slice(i, i + 4), 16));
  if (hex.length === 2) out.push(Number.parseInt(hex, 16));
  return out;
}

/** The text between each `begin…` and its `end…`, found with one forward search each. */
function* sections(text: string, name: string): Generator<string> {
  for (let at = text.indexOf(`begin${name}`); at !== -1; ) {
    const start = at + name.length + 5;
    const end = text.indexOf(`end${name}`, start);
    yield text.slice(start, end === -1 ? text.length : end);
    if (end === -1) return;
    at = text.indexOf(`begin${name}`, end);
  }
}

function addRange(map: Map<number, string>, low: number, high: number, target: string): void {
  const base = units(target);
  if (base.length === 0) return;
  for (let code = low; code <= high && map.size < MAX_CODES; code++) {
    const shifted = [...base];
    shifted[shifted.length - 1]! += code - low;
    map.set(code, String.fromCharCode(...shifted));
  }
}

/** A ToUnicode CMap's single codes (`bfchar`) and ranges (`bfrange`, by offset or by list). */
export function parseCMap(cmap: string, defaultWidth: 1 | 2): FontDecoder {
  const space = /begincodespacerange\s*<([0-9A-Fa-f]+)>/.exec(cmap);
  const width = space ? (space[1]!.length > 2 ? 2 : 1) : defaultWidth;
  const map = new Map<number, string>();
  for (const section of sections(cmap, 'bfchar')) {
    for (const pair of section.matchAll(/<([0-9A-Fa-f]{1,8})>\s*<([0-9A-Fa-f]{0,64})>/g)) {
      if (map.size >= MAX_CODES) break;
      map.set(Number.parseInt(pair[1]!, 16), String.fromCharCode(...units(pair[2]!)));
    }
  }
  for (const section of sections(cmap, 'bfrange')) {
    const ranges = section.matchAll(
      /<([0-9A-Fa-f]{1,8})>\s*<([0-9A-Fa-f]{1,8})>\s*(?:<([0-9A-Fa-f]{0,64})>|\[([^\]]*)\])/g,
    );
    for (const [, lowHex, highHex, target, list] of ranges) {
      const low = Number.parseInt(lowHex!, 16);
      const high = Number.parseInt(highHex!, 16);
      if (high < low || high - low >= MAX_CODES || map.size >= MAX_CODES) continue;
      if (target !== undefined) addRange(map, low, high, target);
      else {
        [...list!.matchAll(/<([0-9A-Fa-f]{0,64})>/g)].forEach((item, k) => {
          if (low + k <= high) map.set(low + k, String.fromCharCode(...units(item[1]!)));
        });
      }
    }
  }
  return { width, map, readable: true };
}

/** The decoder of a font dictionary; `stream` gives the bytes of the object a reference names. */
export function fontDecoder(dict: string, stream: (object: number) => Buffer | null): FontDecoder {
  const composite = /\/Subtype\s*\/Type0/.test(dict);
  const toUnicode = /\/ToUnicode\s+(\d+)\s+\d+\s+R/.exec(dict);
  const bytes = toUnicode ? stream(Number(toUnicode[1])) : null;
  if (bytes) {
    const decoder = parseCMap(bytes.toString('latin1'), composite ? 2 : 1);
    if (decoder.map!.size > 0) return decoder;
  }
  return composite ? UNREADABLE_FONT : LATIN1_FONT;
}

/** A string operand's bytes (one Latin-1 character each) as text in the font. */
export function decodeString(raw: string, font: FontDecoder): string {
  if (!font.readable) return '';
  if (!font.map) return raw;
  let out = '';
  for (let i = 0; i + font.width <= raw.length; i += font.width) {
    const code = font.width === 2 ? (raw.charCodeAt(i) << 8) | raw.charCodeAt(i + 1) : raw.charCodeAt(i);
    out += font.map.get(code) ?? (font.width === 1 ? raw[i] : '');
  }
  return out;
}
