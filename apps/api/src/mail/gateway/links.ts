import type { MessageLink } from '../../engines/types.ts';
import { stripTags } from '../html-text.ts';

/** How much of a message's HTML and text is read for links: enough for any real message. */
const MAX_SCAN_CHARS = 512 * 1024;
const TEXT_URL = /\bhttps?:\/\/[^\s<>"')]{1,2000}/gi;
const HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i;

/**
 * The links of a message: HTML anchors with their text, and bare URLs of the text part. Linear in
 * the input (no backtracking regex over attacker-controlled HTML) and bounded in size.
 */
export function linksOf(html: string | null, text: string, limit = 500): MessageLink[] {
  const links: MessageLink[] = [];
  if (html) {
    const source = html.slice(0, MAX_SCAN_CHARS);
    const lower = source.toLowerCase();
    let at = 0;
    while (links.length < limit) {
      const open = lower.indexOf('<a', at);
      if (open < 0) break;
      const next = lower[open + 2];
      const tagEnd = lower.indexOf('>', open);
      if (tagEnd < 0) break;
      at = tagEnd + 1;
      if (next !== ' ' && next !== '\t' && next !== '\n' && next !== '\r' && next !== '>') continue;
      const href = HREF.exec(source.slice(open, tagEnd + 1));
      if (!href) continue;
      const close = lower.indexOf('</a', at);
      const inner = source.slice(at, close < 0 ? Math.min(source.length, at + 2_000) : close);
      links.push({ href: stripTags(href[1] ?? href[2] ?? href[3] ?? ''), text: stripTags(inner) });
      if (close >= 0) at = close + 3;
    }
  }
  for (const match of text.slice(0, MAX_SCAN_CHARS).matchAll(TEXT_URL)) {
    if (links.length >= limit) break;
    links.push({ href: match[0], text: match[0] });
  }
  return links;
}
