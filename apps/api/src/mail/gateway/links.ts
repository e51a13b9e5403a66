import type { MessageLink } from '../../engines/types.ts';

const ANCHOR = /<a\b[^>]*\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))[^>]*>([\s\S]*?)<\/a\s*>/gi;
const TEXT_URL = /\bhttps?:\/\/[^\s<>"')]+/gi;

const decode = (value: string) =>
  value
    .replace(/<[^>]*>/g, '')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();

/** The links of a message: HTML anchors with their text, and bare URLs of the text part. */
export function linksOf(html: string | null, text: string, limit = 500): MessageLink[] {
  const links: MessageLink[] = [];
  if (html) {
    for (const match of html.matchAll(ANCHOR)) {
      if (links.length >= limit) break;
      const href = decode(match[1] ?? match[2] ?? match[3] ?? '');
      links.push({ href, text: decode(match[4] ?? '') });
    }
  }
  for (const match of text.matchAll(TEXT_URL)) {
    if (links.length >= limit) break;
    links.push({ href: match[0], text: match[0] });
  }
  return links;
}
