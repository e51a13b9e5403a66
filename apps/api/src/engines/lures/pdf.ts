import { inflateSync } from 'node:zlib';
import { decodeImage, type Gray, MAX_PIXELS, MAX_SIDE, MIN_SIDE } from './pixels.ts';

/** One image stream of a PDF longer than this is not read. */
const MAX_STREAM_BYTES = 5 * 1024 * 1024;

export const isPdf = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024))
    .toString('latin1')
    .includes('%PDF-');

/** What a PDF holds that a lure hides behind: its pictures (QR codes) and its link targets. */
export interface PdfContents {
  /** Decoded one at a time as they are asked for, so only one picture's pixels are held at once. */
  images: Generator<Gray>;
  uris: string[];
}

const OBJECT = /(\d+)\s+(\d+)\s+obj\b/g;

/** The value of `/Key` in a dictionary's text: a number, a name, an array, a flat dictionary, or `N G R`. */
function entry(dict: string, key: string): string | null {
  const match = new RegExp(
    `/${key}(?![A-Za-z])\\s*(\\[[^\\]]{0,2000}\\]|<<[^<>]{0,2000}>>|\\d+\\s+\\d+\\s+R|/[A-Za-z0-9#._-]+|-?[\\d.]+|true|false)`,
  ).exec(dict);
  return match ? match[1]! : null;
}

/**
 * The image XObjects and link targets of a PDF, read from its objects as they lie in the file (an
 * image is a stream of its own, never inside a compressed object stream): DCTDecode images are
 * JPEG files, FlateDecode ones raw samples (gray, RGB, CMYK or a palette, 1 to 16 bits, with or
 * without PNG predictors). Images in codings not read here (JPEG 2000, fax, JBIG2) and the
 * streams of encrypted files are passed over.
 */
export function pdfContents(bytes: Uint8Array): PdfContents {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('latin1');
  const uris: string[] = [];
  for (const match of text.matchAll(/\/URI\s*\(((?:[^()\\]|\\.){1,2000})\)/g)) {
    if (uris.length >= 50) break;
    uris.push(match[1]!.replace(/\\(.)/g, '$1'));
  }
  return { uris, images: pdfImages(buffer, text) };
}

function* pdfImages(buffer: Buffer, text: string): Generator<Gray> {
  // Encrypted files have encrypted streams: nothing to read without the password.
  const encrypted = /\/Encrypt\s+(?:\d+\s+\d+\s+R|<<)/.test(text);

  const offsets = new Map<number, number>();
  for (const match of text.matchAll(OBJECT)) offsets.set(Number(match[1]), match.index! + match[0].length);
  /** The text of object `ref` ("12 0 R") up to its stream or its end, for indirect values. */
  const resolve = (value: string | null): string | null => {
    const ref = value && /^(\d+)\s+\d+\s+R$/.exec(value);
    if (!ref) return value;
    const at = offsets.get(Number(ref[1]));
    if (at === undefined) return null;
    const end = text.indexOf('endobj', at);
    return text.slice(at, end < 0 ? at + 4096 : Math.min(end, at + 4096)).trim();
  };

  let searchFrom = 0;
  for (;;) {
    const found = text.indexOf('/Image', searchFrom);
    if (found < 0) break;
    searchFrom = found + 6;
    if (!/\/Subtype\s*$/.test(text.slice(Math.max(0, found - 12), found))) continue;
    const dictStart = text.lastIndexOf(' obj', found);
    const streamAt = text.indexOf('stream', found);
    if (dictStart < 0 || streamAt < 0) continue;
    const dict = text.slice(dictStart, streamAt);
    if (dict.includes('endobj')) continue;
    if (encrypted) return;
    let dataStart = streamAt + 6;
    if (text[dataStart] === '\r') dataStart += 1;
    if (text[dataStart] === '\n') dataStart += 1;
    const declared = Number(resolve(entry(dict, 'Length')));
    const endAt = text.indexOf('endstream', dataStart);
    const length =
      Number.isInteger(declared) && declared > 0 && dataStart + declared <= buffer.length
        ? declared
        : endAt - dataStart;
    if (length <= 0 || length > MAX_STREAM_BYTES) continue;
    searchFrom = dataStart + length;
    const image = pdfImage(dict, buffer.subarray(dataStart, dataStart + length), resolve);
    if (image && image !== 'undecodable') yield image;
  }
}

/** One image stream's pixels, null when it is too small or too large to matter. */
function pdfImage(
  dict: string,
  data: Buffer,
  resolve: (value: string | null) => string | null,
): Gray | null | 'undecodable' {
  const width = Number(resolve(entry(dict, 'Width')));
  const height = Number(resolve(entry(dict, 'Height')));
  if (!Number.isInteger(width) || !Number.isInteger(height)) return 'undecodable';
  if (width < MIN_SIDE || height < MIN_SIDE) return null;
  if (width > MAX_SIDE || height > MAX_SIDE || width * height > MAX_PIXELS) return null;
  const filter = resolve(entry(dict, 'Filter')) ?? '';
  const filters = [...filter.matchAll(/\/([A-Za-z0-9]+)/g)].map((m) => m[1]!);
  if (filters.some((f) => f !== 'FlateDecode' && f !== 'Fl' && f !== 'DCTDecode' && f !== 'DCT')) {
    return 'undecodable';
  }
  const bits = Number(resolve(entry(dict, 'BitsPerComponent')) ?? (entry(dict, 'ImageMask') ? 1 : 8));
  const mask = entry(dict, 'ImageMask') === 'true';
  let samples: Buffer = data;
  try {
    if (filters[0] === 'FlateDecode' || filters[0] === 'Fl') {
      samples = inflateSync(data, { maxOutputLength: width * height * 8 + height + 1024 });
    }
  } catch {
    return 'undecodable';
  }
  if (filters.includes('DCTDecode') || filters.includes('DCT'))
    return decodeImage('jpeg', samples) ?? 'undecodable';
  if (![1, 2, 4, 8, 16].includes(bits)) return 'undecodable';

  const colorSpace = resolve(entry(dict, 'ColorSpace')) ?? '/DeviceGray';
  const indexed = /\/Indexed|\/I\b/.test(colorSpace);
  const palette = indexed ? indexedPalette(colorSpace) : null;
  const parms = resolve(entry(dict, 'DecodeParms')) ?? '';
  const predictor = Number(/\/Predictor\s+(\d+)/.exec(parms)?.[1] ?? 1);
  // Components per pixel from the samples' own length: ICC-based and other spaces need no lookup.
  const fits = (c: number) =>
    (Math.ceil((width * c * bits) / 8) + (predictor >= 10 ? 1 : 0)) * height <= samples.length;
  const components = mask || indexed ? 1 : [4, 3, 1].find(fits);
  if (!components) return 'undecodable';
  const rowBytes = Math.ceil((width * components * bits) / 8);
  const rows =
    predictor >= 10 ? unpredict(samples, rowBytes, height, Math.max(1, (components * bits) / 8)) : samples;
  if (!rows || rows.length < rowBytes * height) return 'undecodable';

  const out = new Uint8Array(width * height);
  const max = (1 << Math.min(bits, 8)) - 1;
  const sample = (row: number, index: number): number => {
    if (bits === 8) return rows[row + index]!;
    if (bits === 16) return rows[row + index * 2]!;
    const bit = index * bits;
    return (rows[row + (bit >> 3)]! >> (8 - bits - (bit & 7))) & max;
  };
  const invert = /\[\s*1(?:\.0)?\s+0(?:\.0)?\s*\]/.test(entry(dict, 'Decode') ?? '');
  for (let y = 0; y < height; y++) {
    const row = y * rowBytes;
    for (let x = 0; x < width; x++) {
      let gray: number;
      if (palette) {
        const c = sample(row, x) * 3;
        gray = ((palette[c] ?? 0) * 77 + (palette[c + 1] ?? 0) * 150 + (palette[c + 2] ?? 0) * 29) >> 8;
      } else if (components === 1) {
        gray = mask ? (sample(row, x) ? 255 : 0) : (sample(row, x) * 255) / (bits === 16 ? 255 : max);
      } else if (components === 3) {
        const r = sample(row, x * 3);
        const g = sample(row, x * 3 + 1);
        const b = sample(row, x * 3 + 2);
        gray = (((r * 77 + g * 150 + b * 29) >> 8) * 255) / (bits === 16 ? 255 : max);
      } else {
        const c = sample(row, x * 4);
        const m = sample(row, x * 4 + 1);
        const yy = sample(row, x * 4 + 2);
        const k = sample(row, x * 4 + 3);
        const scale = bits === 16 ? 255 : max;
        gray = 255 - Math.min(255, ((c * 77 + m * 150 + yy * 29) / 256 + k) * (255 / scale));
      }
      out[y * width + x] = invert ? 255 - gray : gray;
    }
  }
  return { width, height, data: out };
}

/**
 * An indexed colour space's palette as RGB bytes when written inline (a hex or literal string);
 * null for a palette in a stream of its own, whose indices are then read as brightness.
 */
function indexedPalette(colorSpace: string): Uint8Array | null {
  const hex = /<([0-9A-Fa-f\s]+)>\s*\]/.exec(colorSpace);
  if (hex) return Uint8Array.from(Buffer.from(hex[1]!.replace(/\s+/g, ''), 'hex'));
  const literal = /\((.*)\)\s*\]/s.exec(colorSpace);
  if (literal) return Uint8Array.from(Buffer.from(literal[1]!.replace(/\\([()\\])/g, '$1'), 'latin1'));
  return null;
}

/** Samples with PNG row predictors (None, Sub, Up, Average, Paeth) undone. */
function unpredict(data: Buffer, rowBytes: number, height: number, pixelBytes: number): Uint8Array | null {
  const stride = rowBytes + 1;
  if (data.length < stride * height) return null;
  const bpp = Math.max(1, Math.floor(pixelBytes));
  const out = new Uint8Array(rowBytes * height);
  for (let y = 0; y < height; y++) {
    const type = data[y * stride]!;
    const src = y * stride + 1;
    const dst = y * rowBytes;
    for (let x = 0; x < rowBytes; x++) {
      const raw = data[src + x]!;
      const left = x >= bpp ? out[dst + x - bpp]! : 0;
      const up = y > 0 ? out[dst - rowBytes + x]! : 0;
      const upLeft = y > 0 && x >= bpp ? out[dst - rowBytes + x - bpp]! : 0;
      let value: number;
      if (type === 1) value = raw + left;
      else if (type === 2) value = raw + up;
      else if (type === 3) value = raw + ((left + up) >> 1);
      else if (type === 4) {
        const p = left + up - upLeft;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - upLeft);
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else value = raw;
      out[dst + x] = value & 0xff;
    }
  }
  return out;
}
