const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&nbsp;': ' ',
};
const decode = (text: string) =>
  text.replace(/&(?:amp|lt|gt|quot|#39|nbsp);/g, (entity) => ENTITIES[entity] ?? entity);

/** Text without tags and with the common entities decoded, whitespace collapsed, in one linear pass. */
export function stripTags(html: string): string {
  let out = '';
  let inTag = false;
  for (const ch of html) {
    if (ch === '<') inTag = true;
    else if (ch === '>') inTag = false;
    else if (!inTag) out += ch;
  }
  return decode(out).replace(/\s+/g, ' ').trim();
}

/** Tags after which reading continues on a new line. */
const BREAKS = /^\/?(?:br|p|div|tr|li|h[1-6]|table|blockquote|pre|hr)\b/i;
const HIDDEN = /^(style|script|head|title)\b/i;

/**
 * The readable text of an HTML body for mail without a text part: tags dropped, block ends as
 * line breaks, style/script/head content skipped. One pass over the input, whatever its nesting
 * (a full HTML parser can take time quadratic in the depth: a sender must not be able to stall us).
 */
export function textOfHtml(html: string, maxChars = 2 * 1024 * 1024): string {
  const source = html.length > maxChars ? html.slice(0, maxChars) : html;
  const out: string[] = [];
  let i = 0;
  let hiddenUntil: string | null = null;
  while (i < source.length) {
    const open = source.indexOf('<', i);
    const textEnd = open === -1 ? source.length : open;
    if (!hiddenUntil && textEnd > i) out.push(source.slice(i, textEnd));
    if (open === -1) break;
    const close = source.indexOf('>', open + 1);
    if (close === -1) break;
    const tag = source.slice(open + 1, Math.min(close, open + 40));
    if (hiddenUntil) {
      if (tag.toLowerCase().startsWith(`/${hiddenUntil}`)) hiddenUntil = null;
    } else {
      const hidden = HIDDEN.exec(tag);
      if (hidden && !tag.endsWith('/')) hiddenUntil = hidden[1]!.toLowerCase();
      else if (BREAKS.test(tag)) out.push('\n');
    }
    i = close + 1;
  }
  return decode(out.join(''))
    .replace(/[ \t\r\f\v]+/g, ' ')
    .replace(/ *\n[ \n]*/g, '\n')
    .trim();
}
