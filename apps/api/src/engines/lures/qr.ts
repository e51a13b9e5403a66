import { unzipSync } from 'fflate';
import jsQR from 'jsqr';
import { pdfContents } from './pdf.ts';
import { decodeImage, type Gray, type ImageKind, imageKind, shrink } from './pixels.ts';

/** The QR reader's picture size: its time grows with the pixels; a phone-sized code stays readable. */
const DECODE_SIDE = 1_000;
/** Pictures up to this many pixels are also read inverted (a light code on a dark background). */
const INVERTED_PIXELS = 640 * 640;

/** What the worker is given: the pictures and PDFs of one message, and how long it may take. */
export interface QrTask {
  items: Array<{ source: string; kind: ImageKind | 'pdf' | 'office'; content: Uint8Array }>;
  budgetMs: number;
  maxImages: number;
}

export interface QrResult {
  codes: Array<{ source: string; data: string }>;
  /** Link targets of PDF annotations. */
  uris: Array<{ source: string; uri: string }>;
  /** Pictures read (decoded and searched for a code). */
  images: number;
  /** Stopped on reaching the time or the count, with pictures possibly left unread. */
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

/** Office documents' pictures larger than this are not read. */
const MAX_MEDIA_BYTES = 5 * 1024 * 1024;
const MEDIA = /^(?:word|xl|ppt)\/media\/[^/]+\.(?:png|jpe?g|gif)$/i;

/**
 * The pictures of a Word, Excel or PowerPoint file (a zip with them under word/media, xl/media,
 * ppt/media), only those inflated, each at most MAX_MEDIA_BYTES by its declared size.
 */
function* officePictures(bytes: Uint8Array): Generator<Gray> {
  let media: Record<string, Uint8Array>;
  try {
    media = unzipSync(bytes, { filter: (f) => MEDIA.test(f.name) && f.originalSize <= MAX_MEDIA_BYTES });
  } catch {
    return;
  }
  for (const content of Object.values(media)) {
    const kind = imageKind(content);
    const image = kind ? decodeImage(kind, content) : null;
    if (image) yield image;
  }
}

/** The QR codes of a message's pictures, PDFs and Office files, read until the budget or the count is spent. */
export function readQrCodes(task: QrTask, now = () => performance.now()): QrResult {
  const deadline = now() + task.budgetMs;
  const result: QrResult = { codes: [], uris: [], images: 0, incomplete: false };
  const read = (source: string, image: Gray | null) => {
    if (!image) return;
    result.images += 1;
    let data: string | null = null;
    try {
      data = readQr(image);
    } catch {
      // The reader failing on one picture (jsqr has thrown on odd ones) leaves the others to read.
    }
    if (data) result.codes.push({ source, data });
  };
  for (const item of task.items) {
    if (result.images >= task.maxImages || now() > deadline) {
      result.incomplete = true;
      break;
    }
    if (item.kind !== 'pdf' && item.kind !== 'office') {
      read(item.source, decodeImage(item.kind, item.content));
      continue;
    }
    let images: Generator<Gray>;
    if (item.kind === 'office') images = officePictures(item.content);
    else {
      const pdf = pdfContents(item.content);
      for (const uri of pdf.uris) result.uris.push({ source: item.source, uri });
      images = pdf.images;
    }
    for (const image of images) {
      read(item.source, image);
      if (result.images >= task.maxImages || now() > deadline) {
        result.incomplete = true;
        break;
      }
    }
  }
  return result;
}
