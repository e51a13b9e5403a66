import { hostOf } from '../phishing/urls.ts';

/**
 * What an HTML or SVG attachment does when the recipient opens it in a browser: a local page
 * asking for a password, posting it to a site, sending the reader elsewhere, or running hidden
 * script. Read with a linear tag scanner (no HTML parser: a sender must not be able to make us
 * spend time quadratic in the nesting), over at most HEAD + TAIL characters.
 */

/** Pages longer than HEAD + TAIL are read at both ends: lure kits pad the middle, not the form. */
const HEAD = 512 * 1024;
const TAIL = 512 * 1024;
/** Script text kept for the checks below, per page. */
const MAX_SCRIPT = 512 * 1024;

export type PageKind = 'HTML' | 'SVG';

/** What a page holds, found in one pass. */
export interface PageFacts {
  passwordFields: number;
  /** Absolute http(s) targets of forms. */
  formTargets: string[];
  /** http(s) links of anchors, frames, refreshes and base: what the reader is led to. */
  links: string[];
  /** Where a meta refresh sends the reader. */
  refresh: string | null;
  scripts: string[];
  /** on* attributes and javascript: URLs: script outside <script>. */
  inlineScript: number;
  /** Links to data:text/html pages (a whole page hidden in a link). */
  dataPages: number;
}

const ENTITY = /&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|(amp|lt|gt|quot|apos|colon|sol|period|nbsp));?/gi;
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  colon: ':',
  sol: '/',
  period: '.',
  nbsp: ' ',
};
/** An attribute value as a browser reads it: entities decoded (`&#46;` hides a dot from a filter). */
export function decodeEntities(value: string): string {
  return value.replace(ENTITY, (all, dec: string, hex: string, name: string) => {
    const code = dec ? Number(dec) : hex ? Number.parseInt(hex, 16) : null;
    if (code !== null) return code <= 0x10ffff ? String.fromCodePoint(code) : all;
    return NAMED[name.toLowerCase()] ?? all;
  });
}

const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+)))?/g;

function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const match of tag.matchAll(ATTRIBUTE)) {
    const name = match[1]!.toLowerCase();
    if (!attributes.has(name)) attributes.set(name, decodeEntities(match[2] ?? match[3] ?? match[4] ?? ''));
  }
  return attributes;
}

/** A URL with its spaces and control characters removed, as browsers do before reading its scheme. */
const squeezed = (url: string) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: browsers drop them, so do we
  url.replace(/[\u0000-\u0020]+/g, '');
const isWeb = (url: string) => /^https?:\/\//i.test(squeezed(url));

/** Attributes that take a URL a click or a load follows. */
const URL_ATTRIBUTES = ['href', 'xlink:href', 'src', 'action', 'formaction', 'data'];

/**
 * `indexOf` that remembers where each character was last found: a tag's end, its `=` and its
 * quotes are looked for from ever later places (or from before a place found already), so every
 * character of the page is scanned a bounded number of times, however the quotes are placed.
 */
function finder(source: string) {
  const found = new Map<string, { from: number; at: number }>();
  return (needle: string, from: number): number => {
    const seen = found.get(needle);
    if (seen && seen.from <= from && (seen.at >= from || seen.at < 0)) return seen.at;
    const at = source.indexOf(needle, from);
    found.set(needle, { from, at });
    return at;
  };
}

/**
 * The end of a tag opened at `open`, past quoted values (a `>` inside one does not end it); a
 * quote that never closes is taken as a character like any other.
 */
function tagEnd(source: string, open: number, find: (needle: string, from: number) => number): number {
  let at = open + 1;
  for (;;) {
    const gt = find('>', at);
    if (gt < 0) return -1;
    const eq = find('=', at);
    if (eq < 0 || eq > gt) return gt;
    let value = eq + 1;
    while (value < gt && /\s/.test(source[value]!)) value += 1;
    const quote = source[value];
    if (quote !== '"' && quote !== "'") {
      at = eq + 1;
      continue;
    }
    const close = find(quote, value + 1);
    if (close < 0) return gt;
    at = close + 1;
  }
}

/** The facts of one HTML or SVG page. */
export function pageFacts(page: string): PageFacts {
  const source = page.length > HEAD + TAIL ? page.slice(0, HEAD) + page.slice(-TAIL) : page;
  const lower = source.toLowerCase();
  const facts: PageFacts = {
    passwordFields: 0,
    formTargets: [],
    links: [],
    refresh: null,
    scripts: [],
    inlineScript: 0,
    dataPages: 0,
  };
  let scriptChars = 0;
  let at = 0;
  const find = finder(source);
  while (at < source.length) {
    const open = source.indexOf('<', at);
    if (open < 0) break;
    if (lower.startsWith('<!--', open)) {
      const close = lower.indexOf('-->', open + 4);
      at = close < 0 ? source.length : close + 3;
      continue;
    }
    const nameMatch = /^<([a-z][a-z0-9:-]*)/.exec(lower.slice(open, open + 40));
    if (!nameMatch) {
      at = open + 1;
      continue;
    }
    const close = tagEnd(source, open, find);
    if (close < 0) break;
    at = close + 1;
    // `<svg:script>`, `<html:form>`: a namespace prefix does not change what the element does.
    const name = nameMatch[1]!.replace(/^[a-z0-9-]+:/, '');
    const attributes = attributesOf(source.slice(open + 1 + nameMatch[1]!.length, close));

    for (const [attribute, value] of attributes) {
      if (attribute.startsWith('on') && attribute.length > 2) facts.inlineScript += 1;
      if (!URL_ATTRIBUTES.includes(attribute)) continue;
      const url = squeezed(value).toLowerCase();
      if (url.startsWith('javascript:')) facts.inlineScript += 1;
      else if (/^data:(?:text\/html|application\/xhtml|image\/svg)/.test(url) && name !== 'img')
        facts.dataPages += 1;
    }

    if (name === 'script' || name === 'style' || name === 'textarea' || name === 'title') {
      const end = lower.indexOf(`</${name}`, at);
      const body = source.slice(at, end < 0 ? source.length : end);
      at = end < 0 ? source.length : end;
      if (name === 'script') {
        const src = attributes.get('src');
        if (src && isWeb(src)) facts.links.push(squeezed(src));
        if (scriptChars < MAX_SCRIPT) {
          facts.scripts.push(body.slice(0, MAX_SCRIPT - scriptChars));
          scriptChars += body.length;
        }
        if (!src && body.trim() === '') facts.scripts.pop();
      }
      continue;
    }
    if (name === 'input') {
      const type = (attributes.get('type') ?? '').toLowerCase();
      if (type === 'password') facts.passwordFields += 1;
    } else if (name === 'form') {
      const action = attributes.get('action');
      if (action && isWeb(action)) facts.formTargets.push(squeezed(action));
    } else if (name === 'meta' && (attributes.get('http-equiv') ?? '').toLowerCase() === 'refresh') {
      const target = /url\s*=\s*['"]?([^'"]+)/i.exec(attributes.get('content') ?? '')?.[1]?.trim();
      if (target && isWeb(target)) facts.refresh = squeezed(target);
    } else if (['a', 'area', 'iframe', 'frame', 'base', 'button', 'embed', 'object'].includes(name)) {
      for (const attribute of URL_ATTRIBUTES) {
        const value = attributes.get(attribute);
        if (value && isWeb(value)) facts.links.push(squeezed(value));
      }
    }
    if (name === 'button' || name === 'input') {
      const target = attributes.get('formaction');
      if (target && isWeb(target)) facts.formTargets.push(squeezed(target));
    }
  }
  return facts;
}

/** Script that sends the reader elsewhere the moment the page opens. */
const REDIRECTS =
  /\b(?:(?:window|document|top|self|parent)\s*\.\s*)?location(?:\s*\.\s*href)?\s*=(?!=)|\blocation\s*\.\s*(?:replace|assign)\s*\(|\bwindow\s*\.\s*open\s*\(|\bhttp-equiv\s*=\s*\\?["']?refresh/i;
/** Script written to be unreadable: decoded at run time from base64, escapes or char codes. */
const OBFUSCATION =
  /\b(?:atob|unescape|eval)\s*\(|\bString\s*\.\s*fromCharCode\s*\(|\bdocument\s*\.\s*write(?:ln)?\s*\(\s*(?:unescape|atob|decodeURIComponent)|(?:\\x[0-9a-f]{2}){24}|(?:%[0-9a-f]{2}){24}/i;
/** Script that sends what was typed somewhere. */
const SENDS = /\bfetch\s*\(|XMLHttpRequest|\$\s*\.\s*(?:ajax|post)\s*\(|sendBeacon|\baxios\b|\.submit\s*\(/;
const SCRIPT_URL = /https?:\/\/[^\s'"`<>\\)]{1,500}/gi;
/** Where pages fetch their common libraries from: never where a password is sent. */
const LIBRARY_HOSTS =
  /^(?:code\.jquery\.com|cdnjs\.cloudflare\.com|cdn\.jsdelivr\.net|ajax\.googleapis\.com|unpkg\.com|fonts\.googleapis\.com|fonts\.gstatic\.com|stackpath\.bootstrapcdn\.com|maxcdn\.bootstrapcdn\.com|www\.w3\.org)$/i;

/** Whether a run of base64 this long appears (a hidden page or file inside the script). */
function longBase64Run(text: string, length: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const b64 = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    run = b64 ? run + 1 : 0;
    if (run >= length) return true;
  }
  return false;
}

/** Text that script decodes at run time (atob('…'), unescape('%3C…')), to read what it hides. */
export function hiddenText(script: string, limit = 512 * 1024): string {
  let out = '';
  for (const match of script.matchAll(/\batob\s*\(\s*["'`]([A-Za-z0-9+/=\s]{16,})["'`]/g)) {
    out += Buffer.from(match[1]!, 'base64').toString('utf8');
    if (out.length >= limit) return out.slice(0, limit);
  }
  for (const match of script.matchAll(
    /\b(?:unescape|decodeURIComponent)\s*\(\s*["'`]((?:%[0-9a-fA-F]{2}|[^"'`%]){16,})["'`]/g,
  )) {
    try {
      out += decodeURIComponent(match[1]!);
    } catch {
      // Not valid percent-encoding (unescape's %uXXXX): left unread.
    }
    if (out.length >= limit) return out.slice(0, limit);
  }
  return out;
}

/** What a page's script does, in the terms the evidence uses. */
export function scriptTraits(scripts: string[]) {
  const all = scripts.join('\n');
  const urls = [...all.matchAll(SCRIPT_URL)].map((m) => m[0]).slice(0, 100);
  return {
    redirects: REDIRECTS.test(all),
    obfuscated: OBFUSCATION.test(all) || longBase64Run(all, 2_000),
    sends: SENDS.test(all),
    urls: urls.filter((u) => {
      const host = hostOf(u);
      return host !== null && !LIBRARY_HOSTS.test(host);
    }),
    passwordField: /type\s*=\s*\\?["']?password/i.test(all),
  };
}

/** Whether bytes are an HTML or SVG page, by its name, its type, or how it begins. */
export function pageKind(filename: string, contentType: string, bytes: Uint8Array): PageKind | null {
  const name = filename.toLowerCase();
  const type = contentType.toLowerCase();
  if (/\.svgz?$/.test(name) || type.startsWith('image/svg')) return 'SVG';
  if (
    /\.(?:s?html?|xhtml|xht|mht|mhtml)$/.test(name) ||
    type === 'text/html' ||
    type === 'application/xhtml+xml'
  ) {
    return 'HTML';
  }
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 512))
    .toString('latin1')
    .replace(/^\ufeff|^\xef\xbb\xbf/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'SVG';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'HTML';
  return null;
}

/** A page's text: UTF-16 by its byte-order mark, else UTF-8 (what browsers guess for a local file). */
export function pageText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes);
}
