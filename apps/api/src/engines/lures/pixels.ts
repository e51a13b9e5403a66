import jpeg from 'jpeg-js';
import { GifReader } from 'omggif';
import { PNG } from 'pngjs';

/** A picture as one brightness byte per pixel (0 black, 255 white), what a QR reader needs. */
export interface Gray {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Larger pictures are not read: a QR code meant for a phone camera never needs more. */
export const MAX_SIDE = 4_000;
export const MAX_PIXELS = MAX_SIDE * MAX_SIDE;
/** Smaller ones cannot hold a QR code (21 modules a side at the least). */
export const MIN_SIDE = 21;

export type ImageKind = 'png' | 'jpeg' | 'gif';

/** What the bytes are, whatever the name or content type says. */
export function imageKind(bytes: Uint8Array): ImageKind | null {
  if (bytes.length >= 8 && bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) {
    return 'png';
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  if (bytes.length >= 6 && bytes[0] === 0x47 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x38) {
    return 'gif';
  }
  return null;
}

/**
 * An image's size from its header, read before anything is decoded, so a picture claiming
 * 60,000 x 60,000 pixels costs nothing. Null when the header cannot be read.
 */
export function imageSize(kind: ImageKind, bytes: Uint8Array): { width: number; height: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (kind === 'png') {
    if (bytes.length < 24) return null;
    return { width: view.getUint32(16), height: view.getUint32(20) };
  }
  if (kind === 'gif') {
    if (bytes.length < 10) return null;
    return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
  }
  // JPEG: walk the segments to the first start-of-frame marker (SOF0..SOF15 but DHT, JPG, DAC).
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = view.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: view.getUint16(at + 7), height: view.getUint16(at + 5) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * Brightness of RGBA pixels, each composited on white (a QR code drawn in black on a transparent
 * background is black on white to a phone; read as is, its transparent black would be all black).
 */
export function grayOfRgba(rgba: Uint8Array, width: number, height: number): Gray {
  const data = new Uint8Array(width * height);
  for (let i = 0, p = 0; i < data.length; i++, p += 4) {
    const luma = (rgba[p]! * 77 + rgba[p + 1]! * 150 + rgba[p + 2]! * 29) >> 8;
    const alpha = rgba[p + 3]!;
    data[i] = alpha === 255 ? luma : (luma * alpha + 255 * (255 - alpha)) / 255;
  }
  return { width, height, data };
}

/** The pixels of a PNG, JPEG or GIF image (its first frame), or null when they cannot be read. */
export function decodeImage(kind: ImageKind, bytes: Uint8Array): Gray | null {
  const size = imageSize(kind, bytes);
  if (!size || size.width * size.height > MAX_PIXELS || size.width > MAX_SIDE || size.height > MAX_SIDE) {
    return null;
  }
  if (size.width < MIN_SIDE || size.height < MIN_SIDE) return null;
  try {
    if (kind === 'png') {
      const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      return grayOfRgba(png.data, png.width, png.height);
    }
    if (kind === 'jpeg') {
      const image = jpeg.decode(bytes, {
        useTArray: true,
        formatAsRGBA: true,
        tolerantDecoding: true,
        maxResolutionInMP: MAX_PIXELS / 1e6,
        maxMemoryUsageInMB: 256,
      });
      return grayOfRgba(image.data, image.width, image.height);
    }
    const gif = new GifReader(bytes);
    const rgba = new Uint8Array(gif.width * gif.height * 4);
    gif.decodeAndBlitFrameRGBA(0, rgba);
    return grayOfRgba(rgba, gif.width, gif.height);
  } catch {
    return null;
  }
}

/**
 * The picture shrunk by a whole factor (each pixel the mean of a square of pixels) until its
 * longer side is at most `maxSide`: the QR reader's time grows with the pixels, and a code a
 * camera can read keeps its modules several pixels wide at this size.
 */
export function shrink(image: Gray, maxSide: number): Gray {
  const factor = Math.ceil(Math.max(image.width, image.height) / maxSide);
  if (factor <= 1) return image;
  const width = Math.floor(image.width / factor);
  const height = Math.floor(image.height / factor);
  const data = new Uint8Array(width * height);
  const area = factor * factor;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let sum = 0;
      for (let dy = 0; dy < factor; dy++) {
        const row = (y * factor + dy) * image.width + x * factor;
        for (let dx = 0; dx < factor; dx++) sum += image.data[row + dx]!;
      }
      data[y * width + x] = sum / area;
    }
  }
  return { width, height, data };
}
