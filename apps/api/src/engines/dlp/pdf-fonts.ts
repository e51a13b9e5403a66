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

/**
 * Work left for reading CMaps, shared by every font of a message: each code a `bfchar`, `bfrange`
 * or list entry sets (or would set) takes one unit, whether or not the map keeps it. Once spent,
 * the remaining ranges and fonts are skipped and `exhausted` says the text was not fully read.
 */
export interface CMapBudget {
  codes: number;
  exhausted: boolean;
}

/** The work one message's PDFs may spend on their fonts' CMaps. */
export const MAX_CMAP_WORK = 200_000;

export const cmapBudget = (): CMapBudget => ({ codes: MAX_CMAP_WORK, exhausted: false });

/** Takes `n` units of work; false (and the budget marked exhausted) when fewer are left. */
function spend(budget: CMapBudget, n: number): boolean {
  if (budget.codes < n) {
    budget.codes = 0;
    budget.exhausted = true;
    return false;
  }
  budget.codes -= n;
  return true;
}

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
  const prefix = String.fromCharCode(...base.slice(0, -1));
  const last = base[base.length - 1]!;
  for (let code = low; code <= high && map.size < MAX_CODES; code++) {
    map.set(code, prefix + String.fromCharCode((last + code - low) & 0xffff));
  }
}

/** A ToUnicode CMap's single codes (`bfchar`) and ranges (`bfrange`, by offset or by list). */
export function parseCMap(cmap: string, defaultWidth: 1 | 2, budget: CMapBudget = cmapBudget()): FontDecoder {
  const space = /begincodespacerange\s*<([0-9A-Fa-f]+)>/.exec(cmap);
  const width = space ? (space[1]!.length > 2 ? 2 : 1) : defaultWidth;
  const map = new Map<number, string>();
  for (const section of sections(cmap, 'bfchar')) {
    if (budget.exhausted) break;
    for (const pair of section.matchAll(/<([0-9A-Fa-f]{1,8})>\s*<([0-9A-Fa-f]{0,64})>/g)) {
      if (map.size >= MAX_CODES || !spend(budget, 1)) break;
      map.set(Number.parseInt(pair[1]!, 16), String.fromCharCode(...units(pair[2]!)));
    }
  }
  for (const section of sections(cmap, 'bfrange')) {
    if (budget.exhausted) break;
    const ranges = section.matchAll(
      /<([0-9A-Fa-f]{1,8})>\s*<([0-9A-Fa-f]{1,8})>\s*(?:<([0-9A-Fa-f]{0,64})>|\[([^\]]*)\])/g,
    );
    for (const [, lowHex, highHex, target, list] of ranges) {
      const low = Number.parseInt(lowHex!, 16);
      const high = Number.parseInt(highHex!, 16);
      if (high < low || high - low >= MAX_CODES || map.size >= MAX_CODES) continue;
      // The whole range is paid for up front: a range repeated many times costs each time.
      if (!spend(budget, high - low + 1)) break;
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
export function fontDecoder(
  dict: string,
  stream: (object: number) => Buffer | null,
  budget: CMapBudget = cmapBudget(),
): FontDecoder {
  const composite = /\/Subtype\s*\/Type0/.test(dict);
  const toUnicode = /\/ToUnicode\s+(\d+)\s+\d+\s+R/.exec(dict);
  // With the work budget spent, a font's map is not read at all (the PDF counts as not fully read).
  const bytes = toUnicode && !budget.exhausted ? stream(Number(toUnicode[1])) : null;
  if (bytes) {
    const decoder = parseCMap(bytes.toString('latin1'), composite ? 2 : 1, budget);
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
