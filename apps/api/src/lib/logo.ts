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

/** An element's or attribute's name with any namespace prefix (`html:script`, `svg:set`). */
const NS = String.raw`(?:[\w.-]+:)?`;

/**
 * What an SVG logo must not hold: anything that runs (scripts in any namespace, event handlers,
 * javascript: URLs, an animation that sets a handler or a link), embeds another document
 * (foreignObject, iframe, object, embed, or anything in the XHTML, XSLT, XML Events or XInclude
 * namespaces), reaches outside itself (a link, source or style import to anything but its own
 * #fragments), or declares entities (XML bombs) or processing instructions (a style sheet).
 */
const SVG_REFUSED: Array<[RegExp, string]> = [
  [new RegExp(String.raw`<\s*${NS}script\b`, 'i'), 'a script'],
  [new RegExp(String.raw`[\s/"']${NS}on[a-z]+\s*=`, 'i'), 'an event handler'],
  [/(?:java|vb)script\s*:/i, 'a javascript: link'],
  [
    new RegExp(
      String.raw`<\s*${NS}(?:foreignObject|iframe|frame|object|embed|applet|portal|audio|video|handler|listener)\b`,
      'i',
    ),
    'an embedded document',
  ],
  [
    /www\.w3\.org\/(?:1999\/xhtml|1999\/XSL\/Transform|2001\/xml-events|2001\/XInclude)/i,
    'HTML or another language that runs',
  ],
  [/<!\s*(?:ENTITY|DOCTYPE|ATTLIST|ELEMENT)/i, 'a DOCTYPE or entity'],
  // A reference to an entity declared elsewhere (XML knows only these five without a DOCTYPE).
  [/&(?!(?:amp|lt|gt|quot|apos);|#)[A-Za-z_][\w.-]*;/, 'a DOCTYPE or entity'],
  [/<\?(?!xml\s)/i, 'a processing instruction'],
  // An animation may set a handler or a link at run time, on whatever element holds it.
  [
    new RegExp(String.raw`attributeName\s*=\s*["']?\s*${NS}(?:href|on[a-z])`, 'i'),
    'an animated link or handler',
  ],
  [/@import/i, 'a style import'],
  [/-moz-binding|behavior\s*:|expression\s*\(/i, 'a style that runs'],
  [/\bhref\s*=\s*(?!["']\s*#)/i, 'a link to outside the image'],
  [new RegExp(String.raw`[\s/"']${NS}src\s*=|\bxml:base\s*=`, 'i'), 'a link to outside the image'],
  [/url\(\s*["']?\s*(?!#)/i, 'a reference to outside the image'],
];

/**
 * The text as an XML parser reads attribute values and text: character references decoded (in
 * one pass, so `&amp;#106;` stays the text `&#106;`). The rules see both this and the bytes.
 */
function decodeReferences(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos));/gi, (whole, dec, hex, name) => {
    if (name) return named[name.toLowerCase()] ?? whole;
    const code = dec !== undefined ? Number(dec) : Number.parseInt(hex, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

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
  // A URL's scheme may be split by tabs and line breaks (browsers drop them), or written with
  // character references: the rules read the text as written, as decoded, and decoded without them.
  const decoded = decodeReferences(text);
  const readings = [text, decoded, decoded.replace(/[\t\n\r]/g, '')];
  const found = [
    ...new Set(
      SVG_REFUSED.filter(([pattern]) => readings.some((reading) => pattern.test(reading))).map(
        ([, what]) => what,
      ),
    ),
  ];
  if (found.length > 0) {
    throw new AppError(
      'validation_error',
      `This SVG holds ${found.join(', ')}, which a logo may not: save it as a plain SVG or as PNG`,
    );
  }
}
