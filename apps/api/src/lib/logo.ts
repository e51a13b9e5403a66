import { LOGO_MAX_BYTES, type LogoMime } from '@moat/contracts/customization';
import { AppError } from '../errors.ts';

/** The first bytes each raster type starts with. */
const MAGIC: Record<Exclude<LogoMime, 'image/svg+xml'>, (b: Uint8Array) => boolean> = {
  'image/png': (b) => b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47,
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) =>
    Buffer.from(b.subarray(0, 4)).toString('latin1') === 'RIFF' &&
    Buffer.from(b.subarray(8, 12)).toString('latin1') === 'WEBP',
};

/**
 * What an SVG logo must not hold: anything that runs (scripts, event handlers, javascript: URLs),
 * embeds another document (foreignObject, iframe, object, embed), reaches outside itself (a link
 * or style import to anything but its own #fragments), or declares entities (XML bombs).
 */
const SVG_REFUSED: Array<[RegExp, string]> = [
  [/<\s*script/i, 'a script'],
  [/\son[a-z]+\s*=/i, 'an event handler'],
  [/javascript\s*:/i, 'a javascript: link'],
  [/<\s*(foreignObject|iframe|object|embed|audio|video|handler|listener)\b/i, 'an embedded document'],
  [/<!\s*(ENTITY|DOCTYPE)/i, 'a DOCTYPE or entity'],
  // An animation may set a link at run time (its value written with character references).
  [/<\s*(set|animate)\b[^>]*attributeName\s*=\s*["']?\s*(xlink:)?href/i, 'an animated link'],
  [/@import/i, 'a style import'],
  [/\b(?:xlink:)?href\s*=\s*["']\s*(?!#)/i, 'a link to outside the image'],
  [/url\(\s*["']?\s*(?!#)/i, 'a reference to outside the image'],
];

/**
 * A logo as it may be stored and shown on every page: one of the four types, its bytes matching
 * the type it claims, at most 1 MiB; an SVG only if it is a plain drawing (nothing above). The
 * logo is served with a sandboxing content-security policy besides (public-config.routes).
 */
export function checkLogo(body: Uint8Array, mime: LogoMime): void {
  if (body.length === 0 || body.length > LOGO_MAX_BYTES) {
    throw new AppError('validation_error', `The logo must be 1 byte to 1 MiB (it is ${body.length} bytes)`);
  }
  if (mime !== 'image/svg+xml') {
    if (!MAGIC[mime](body)) {
      throw new AppError('validation_error', `This file is not a ${mime.slice(6).toUpperCase()} image`);
    }
    return;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new AppError('validation_error', 'This SVG is not UTF-8 text');
  }
  if (!/<svg[\s>]/i.test(text)) throw new AppError('validation_error', 'This file is not an SVG image');
  const found = SVG_REFUSED.filter(([pattern]) => pattern.test(text)).map(([, what]) => what);
  if (found.length > 0) {
    throw new AppError(
      'validation_error',
      `This SVG holds ${found.join(', ')}, which a logo may not: save it as a plain SVG or as PNG`,
    );
  }
}
