import jsQR from 'jsqr';
import { pdfContents } from './pdf.ts';
import { decodeImage, type Gray, type ImageKind, shrink } from './pixels.ts';

/** The QR reader's picture size: its time grows with the pixels; a phone-sized code stays readable. */
const DECODE_SIDE = 1_000;
/** Pictures up to this many pixels are also read inverted (a light code on a dark background). */
const INVERTED_PIXELS = 640 * 640;

/** What the worker is given: the pictures and PDFs of one message, and how long it may take. */
export interface QrTask {
  items: Array<{ source: string; kind: ImageKind | 'pdf'; content: Uint8Array }>;
  budgetMs: number;
  maxImages: number;
}

export interface QrResult {
  codes: Array<{ source: string; data: string }>;
  /** Link targets of PDF annotations. */
  uris: Array<{ source: string; uri: string }>;
  /** Pictures read (decoded and searched for a code). */
  images: number;
  /** Stopped before every picture was read: out of time or over the count. */
  incomplete: boolean;
}

/**
 * The text of the QR code in a picture: dark on light as printed, then, for pictures small enough
 * to read twice cheaply, light on dark (the reader's own inverted pass fails in jsqr 1.4.0 when
 * asked for alone, so the pixels are inverted here).
 */
export function readQr(image: Gray): string | null {
  const small = shrink(image, DECODE_SIDE);
  const rgba = new Uint8ClampedArray(small.width * small.height * 4);
  const fill = (invert: boolean) => {
    for (let i = 0, p = 0; i < small.data.length; i++, p += 4) {
      const v = invert ? 255 - small.data[i]! : small.data[i]!;
      rgba[p] = v;
      rgba[p + 1] = v;
      rgba[p + 2] = v;
      rgba[p + 3] = 255;
    }
    return jsQR(rgba, small.width, small.height, { inversionAttempts: 'dontInvert' })?.data || null;
  };
  return fill(false) ?? (small.width * small.height <= INVERTED_PIXELS ? fill(true) : null);
}

/** The QR codes of a message's pictures and PDFs, read until the budget or the count is spent. */
export function readQrCodes(task: QrTask, now = () => performance.now()): QrResult {
  const deadline = now() + task.budgetMs;
  const result: QrResult = { codes: [], uris: [], images: 0, incomplete: false };
  const read = (source: string, image: Gray | null) => {
    if (!image) return;
    result.images += 1;
    const data = readQr(image);
    if (data) result.codes.push({ source, data });
  };
  for (const item of task.items) {
    if (result.images >= task.maxImages || now() > deadline) {
      result.incomplete = true;
      break;
    }
    if (item.kind !== 'pdf') {
      read(item.source, decodeImage(item.kind, item.content));
      continue;
    }
    const pdf = pdfContents(item.content, task.maxImages - result.images);
    for (const uri of pdf.uris) result.uris.push({ source: item.source, uri });
    for (const image of pdf.images) {
      if (now() > deadline) {
        result.incomplete = true;
        break;
      }
      read(item.source, image);
    }
  }
  return result;
}
