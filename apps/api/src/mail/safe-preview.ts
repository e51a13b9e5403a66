import { endOfText, tokenAt } from './gateway/banner.ts';

/*
 * A message's HTML made safe to show an admin in the console (Smart Banners' preview): no
 * scripts, nothing fetched from anywhere, no link to follow. Every tag is rebuilt from the few
 * attributes that only lay text out; elements that run code, embed another document or fetch
 * something go with their content. The console shows the result in a sandboxed frame (no
 * scripts, no same origin) and the document forbids loading anything itself, so each of the
 * three holds on its own. One linear pass: a sender's deep nesting cannot stall it.
 */

/** Attributes kept: layout and words only (no URL, no event handler, no form target). */
const KEPT_ATTRIBUTES = new Set([
  'style',
  'class',
  'id',
  'width',
  'height',
  'align',
  'valign',
  'bgcolor',
  'color',
  'border',
  'cellpadding',
  'cellspacing',
  'colspan',
  'rowspan',
  'dir',
  'lang',
  'title',
  'alt',
  'face',
  'size',
  'role',
  'nowrap',
  'span',
  'start',
  'aria-label',
  'aria-hidden',
]);

/** Elements that go with everything inside them. */
const DROPPED_WITH_CONTENT = new Set([
  'script',
  'noscript',
  'template',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'noembed',
  'noframes',
  'svg',
  'math',
  'audio',
  'video',
  'canvas',
]);
/** Their text runs to their end tag, whatever it holds (the HTML parser reads them so). */
const RAW_TEXT = new Set(['script', 'noscript', 'iframe', 'noembed', 'noframes', 'xmp', 'style', 'title']);
/** Tags that go (their content stays): they load, navigate, submit or frame the document. */
const DROPPED_TAGS = new Set([
  'html',
  'head',
  'body',
  'link',
  'meta',
  'base',
  'form',
  'portal',
  'source',
  'track',
]);

/** A data: image the frame may show (the policy allows data: images only). */
const DATA_IMAGE = /^\s*data:image\/(?:png|gif|jpe?g|webp);base64,[a-z0-9+/=\s]*$/i;

interface Attribute {
  name: string;
  /** The value as written, quotes included ('' when the attribute has none). */
  raw: string;
  value: string;
}

/** The attributes of the tag `html[start, end)` after its name, read as the tokenizer reads them. */
function attributesOf(html: string, start: number, end: number): Attribute[] {
  const SPACE = /[ \t\n\r\f]/;
  const attributes: Attribute[] = [];
  let i = start;
  const stop = html[end - 1] === '>' ? end - 1 : end;
  while (i < stop) {
    while (i < stop && (SPACE.test(html[i]!) || html[i] === '/')) i++;
    if (i >= stop) break;
    const nameStart = i;
    i++;
    while (i < stop && !SPACE.test(html[i]!) && html[i] !== '/' && html[i] !== '=') i++;
    const name = html.slice(nameStart, i).toLowerCase();
    while (i < stop && SPACE.test(html[i]!)) i++;
    if (html[i] !== '=') {
      attributes.push({ name, raw: '', value: '' });
      continue;
    }
    i++;
    while (i < stop && SPACE.test(html[i]!)) i++;
    const quote = html[i];
    let valueStart = i;
    let valueEnd: number;
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      valueEnd = close === -1 || close >= stop ? stop : close + 1;
      i = valueEnd;
      valueStart += 1;
    } else {
      while (i < stop && !SPACE.test(html[i]!)) i++;
      valueEnd = i;
    }
    const raw = html.slice(quote === '"' || quote === "'" ? valueStart - 1 : valueStart, valueEnd);
    const value = quote === '"' || quote === "'" ? raw.slice(1, raw.endsWith(quote) ? -1 : undefined) : raw;
    attributes.push({ name, raw, value });
  }
  return attributes;
}

/** A kept attribute written back: quoted as it came, or double-quoted when it came bare. */
function attributeText(a: Attribute): string {
  if (a.raw === '') return ` ${a.name}`;
  if (a.raw.startsWith('"') || a.raw.startsWith("'")) {
    const quote = a.raw[0]!;
    return ` ${a.name}=${a.raw.endsWith(quote) && a.raw.length > 1 ? a.raw : `${a.raw}${quote}`}`;
  }
  return ` ${a.name}="${a.raw.replace(/"/g, '&quot;')}"`;
}

/** The body of `html` with only inert markup left (see the module's comment). */
export function inertHtml(html: string): string {
  const lower = html.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  const out: string[] = [];
  let at = 0;
  while (at < html.length) {
    const token = tokenAt(html, at);
    at = Math.max(token.end, at + 1);
    if (token.kind === 'comment') continue;
    if (token.kind === 'text') {
      out.push(html.slice(token.start, token.end));
      continue;
    }
    const { name } = token;
    if (!/^[a-z][a-z0-9-]*$/.test(name)) continue;
    if (token.kind === 'start' && DROPPED_WITH_CONTENT.has(name)) {
      // Raw text runs to its end tag; other elements to their matching end tag (nesting counted).
      if (RAW_TEXT.has(name)) {
        const textEnd = endOfText(lower, name, token.end);
        at = textEnd >= html.length ? html.length : tokenAt(html, textEnd).end;
      } else {
        let depth = 1;
        while (at < html.length && depth > 0) {
          const next = tokenAt(html, at);
          at = Math.max(next.end, at + 1);
          if (next.name === name) depth += next.kind === 'start' ? 1 : next.kind === 'end' ? -1 : 0;
        }
      }
      continue;
    }
    if (DROPPED_WITH_CONTENT.has(name) || DROPPED_TAGS.has(name)) continue;
    if (token.kind === 'end') {
      out.push(`</${name}>`);
      continue;
    }
    const kept = attributesOf(html, token.start + 1 + name.length, token.end).filter(
      (a) => KEPT_ATTRIBUTES.has(a.name) || (name === 'img' && a.name === 'src' && DATA_IMAGE.test(a.value)),
    );
    out.push(`<${name}${kept.map(attributeText).join('')}>`);
    if (name === 'style' || name === 'title' || name === 'textarea' || name === 'xmp') {
      // Their text is not markup: copied as it is up to their end tag.
      const textEnd = endOfText(lower, name, at);
      out.push(html.slice(at, textEnd));
      at = textEnd;
    }
  }
  return out.join('');
}

/** What the preview document allows: inline styles, data: images and fonts; nothing else. */
export const PREVIEW_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'";

const escapeText = (value: string) =>
  value.replace(/[&<>]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[ch]!);

/**
 * A whole document to show in the preview frame: the inert HTML body, or the text part as
 * preformatted text when the message has no HTML.
 */
export function previewDocument(body: { html: string | null; text: string }): string {
  const content =
    body.html !== null
      ? inertHtml(body.html)
      : `<pre style="white-space:pre-wrap;font-family:sans-serif;margin:0">${escapeText(body.text)}</pre>`;
  return [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${PREVIEW_POLICY}">`,
    '<style>body{margin:0;padding:12px;background:#fff;color:#1a1a1a;font-family:sans-serif;overflow-wrap:anywhere}</style>',
    `</head><body>${content}</body></html>`,
  ].join('');
}
