import { randomBytes } from 'node:crypto';
import type { Verdict } from '@moat/contracts/quarantine';
import {
  BANNER_PALETTE,
  BANNER_VERDICTS,
  type BannerColour,
  type BannerVerdict,
  type StoredBannerSettings,
} from '@moat/contracts/smart-banners';
import { mailComposer } from '../compose.ts';
import type { ParsedMessage } from '../parse.ts';

/*
 * The warning a delivered-with-banner message carries (policy action `deliver_banner`): words a
 * recipient can act on, never a link, a host or an address from the message (a mail client makes
 * those clickable again), placed inside the message's body where the sender's own styles cannot
 * hide it.
 */

/** What the warning says first, per verdict. */
const LEAD: Record<Verdict, string> = {
  phishing:
    'Caution: this message may be phishing. Do not open its links or attachments, or reply with personal information, unless you are sure of the sender.',
  malware:
    'Caution: this message may carry malware. Do not open its attachments or links unless you are sure of the sender.',
  spam: 'Caution: this message is probably spam. Do not open its links or attachments, or reply to it, unless you are sure of the sender.',
  suspicious:
    'Caution: this message looks suspicious. Do not open its links or attachments, or reply with personal information, unless you are sure of the sender.',
};

/** The longest lead a tenant's text may give (the Policy screen refuses longer). */
const MAX_TENANT_LEAD = 500;

/**
 * What the warning says first: the tenant's text (Smart Banners) when it set one, else the
 * default for the verdict. The tenant's text is plain text: control characters are dropped and
 * it is cut to length here too (the HTML banner escapes it, the header line bounds it).
 */
export function bannerLead(verdict: Verdict, tenantText?: string | null): string {
  const own = (tenantText ?? '')
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters go
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .trim()
    .slice(0, MAX_TENANT_LEAD);
  return own === '' ? LEAD[verdict] : own;
}

/** The default lead for a verdict (shown on Smart Banners when the tenant set none). */
export const defaultBannerLead = (verdict: Verdict): string => LEAD[verdict];

/**
 * The engines' reasons (`reason:` in src/engines and the gateway) in words for the recipient.
 * They name hosts, addresses, file names and display names the sender chose: none of it is kept.
 */
const KNOWN_REASONS: Array<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^DMARC failed\b/i, () => "the sender's domain failed its authentication check (DMARC)"],
  [/^Lookalike sender domain\b.*\bwrites with$/i, () => "the sender's domain imitates one of your partners'"],
  [/^Lookalike sender domain\b/i, () => "the sender's domain imitates your organisation's"],
  [
    /^The sender calls itself\b/i,
    () => "the sender uses a well-known brand's name but does not write from its domain",
  ],
  [/^The sender's domain\b.*\bimitates\b/i, () => "the sender's domain imitates a well-known brand's"],
  [
    /^The (?:subject names|message opens in)\b/i,
    () => "it uses a well-known brand's name without coming from it",
  ],
  [
    /^In .{1,60}'s name, it asks\b/i,
    () => 'it asks you to act on an account in the name of a well-known brand',
  ],
  [
    / does not write from a free mail address\b/i,
    () => "it uses a well-known brand's name from a free mail address",
  ],
  [
    /^The display name .* speaks for this organisation\b/i,
    () => "the sender uses your organisation's name but writes from outside it",
  ],
  [
    /^The display name .* speaks for .*, a domain this organisation writes with\b/i,
    () => "the sender uses a partner's name but writes from another domain",
  ],
  [
    /^The display name shows an address\b/i,
    () => "the sender's name shows another address than the one it writes from",
  ],
  [
    /^Replies go to a free mail address\b/i,
    () => 'replies would go to a free mail address, not to the sender',
  ],
  [
    /^None of the links of this message in\b/i,
    () => 'it speaks for a well-known brand, but its links lead elsewhere',
  ],
  [/^Replies go to\b/i, () => "replies would go to another address than the sender's"],
  [
    /^A reply in a conversation from\b/i,
    () => 'someone who never wrote to your organisation joins a conversation',
  ],
  [/^It asks about moving money\b/i, () => 'it asks about moving money'],
  [/^A link goes to .*, which imitates\b/i, () => 'a link leads to a site that imitates a known one'],
  [
    /^A link (?:hides its real host|writes its host as a number)\b/i,
    () => 'a link hides the site it really opens',
  ],
  [
    /^A link hides where it goes behind a URL shortener\b/i,
    () => 'a link hides where it goes behind a link shortener',
  ],
  [
    /^A link leads to a page on a free hosting\b/i,
    () => 'a link leads to a page on a free hosting or forms service',
  ],
  [/^A link on .* passes the reader on to\b/i, () => 'a link passes you on to another site'],
  [/^A link carries a whole page\b/i, () => 'a link carries a hidden page inside itself'],
  [/^A link runs code\b/i, () => 'a link runs code instead of opening a page'],
  [/^A link's host mixes alphabets\b/i, () => "a link's address mixes alphabets to imitate another"],
  [/^A ".*" link (?:in|names)\b/i, () => "a sign-in link in a well-known brand's name leads elsewhere"],
  [/^Display name\b/i, () => "the sender uses a colleague's name but writes from outside your organisation"],
  [/^Link to an IP address\b/i, () => 'a link leads to a bare numeric internet address'],
  [/^Link text names\b/i, () => "a link's text names a different site than the one it opens"],
  [/^Link to a blocklisted\b/i, () => 'a link leads to a blocked site'],
  [/^EICAR test (?:file|string)\b/i, () => 'it contains the EICAR anti-virus test file'],
  [/^Known malware\b/i, () => 'an attachment matches known malware'],
  [
    /^Dangerous file type \.([a-z0-9]{1,6}):/i,
    (m) => `an attachment has a dangerous file type (.${m[1]!.toLowerCase()})`,
  ],
  [/ is an? (?:Windows|Linux) executable$/i, () => 'an attachment is an executable program'],
  [/ is a disk image$/i, () => 'an attachment is a disk image'],
  [/ nests archives too deep to inspect$/i, () => 'an attachment nests archives too deep to inspect'],
  [/ is an archive that cannot be opened$/i, () => 'an attachment is an archive that cannot be opened'],
  [/ is an archive too large to inspect$/i, () => 'an attachment is an archive too large to inspect'],
  [/ carries Office macros$/i, () => 'an attachment contains Office macros'],
  [/^rspamd:/i, () => 'the spam filter scored it as spam'],
  [/^Spam score\b/i, () => 'the spam filters gave it a high spam score'],
  [/ could not scan this message$/i, () => 'a security check could not scan it'],
  [/^Sender is on the block list$/i, () => "the sender is on your organisation's block list"],
];

/** How many reasons the warning lists, and how long an unknown one may be once scrubbed. */
const MAX_REASONS = 3;
const MAX_REASON_CHARS = 120;

/** Dots that separate labels: ASCII, ideographic and full-width ones (browsers read all as dots). */
const DOT = '[.\\u3002\\uff0e\\uff61]';
const LOOKS_LIKE_AN_ADDRESS = new RegExp(
  [
    `[\\p{L}\\p{N}_]${DOT}+[\\p{L}\\p{N}_]`, // host.name, file.ext, 1.2.3.4
    String.raw`:\/\/|\\\\`, // scheme://, \\server\share
    '[@\\uff20]', // user@host
    'www', // www anything
    '%[0-9a-f]{2}', // percent-encoded
    '[0-9a-f]*:[0-9a-f]*:', // IPv6
    'mailto:|https?:|ftp:|file:|data:|javascript:',
  ].join('|'),
  'iu',
);

/**
 * An engine's reason that has no known wording, with every word that might be a URL, host, domain
 * or address dropped (anything with a dot between two word characters, `://`, `@`, `www`), and
 * quoted text (sender-chosen names) too.
 */
function scrubbed(reason: string): string {
  const words = reason
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters go too
    .replace(/[\u0000-\u001f\u007f]/g, ' ')
    .replace(/"[^"]*"|“[^”]*”|«[^»]*»/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => (LOOKS_LIKE_AN_ADDRESS.test(word) ? '[removed]' : word));
  const text = words
    .join(' ')
    .replace(/(?:\[removed\]\s*)+/g, '[removed] ')
    .trim();
  if (!/\p{L}/u.test(text.replace(/\[removed\]/g, ''))) return '';
  const short =
    text.length > MAX_REASON_CHARS ? text.slice(0, MAX_REASON_CHARS).replace(/\s+\S*$/, '') : text;
  // The warning adds its own punctuation between reasons.
  return short.replace(/[\s.,;:]+$/, '');
}

/** One reason in the recipient's words, or '' when nothing safe is left of it. */
function reasonInWords(reason: string): string {
  for (const [pattern, words] of KNOWN_REASONS) {
    const match = pattern.exec(reason);
    if (match) return words(match);
  }
  return scrubbed(reason);
}

/**
 * The warning for a delivered message: what to be careful about for its verdict, then up to three
 * of its reasons in plain words, none of them naming a site, host or address.
 */
export function warningText(verdict: Verdict, reasons: string[], tenantText?: string | null): string {
  const said = [...new Set(reasons.map(reasonInWords).filter(Boolean))].slice(0, MAX_REASONS);
  const lead = bannerLead(verdict, tenantText);
  return said.length === 0 ? lead : `${lead} Why: ${said.join('; ')}.`;
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!,
  );

/** The warning for a header line: at most 200 characters, cut between words. */
function headerWarning(text: string): string {
  if (text.length <= 200) return text;
  const cut = text.slice(0, 199);
  return `${cut.slice(0, cut.lastIndexOf(' ') > 100 ? cut.lastIndexOf(' ') : 199)}…`;
}

/**
 * Inline declarations the banner's every element carries, each `!important`: an inline important
 * declaration outranks every rule of the sender's stylesheets, important or not, layered or not,
 * and their animations (CSS Cascade 5 §6.1: element-attached styles before layers and specificity).
 */
const RESET = [
  'visibility:visible',
  'opacity:1',
  'position:static',
  'float:none',
  'transform:none',
  'filter:none',
  'clip-path:none',
  'mask:none',
  '-webkit-mask:none',
  'zoom:1',
  'content-visibility:visible',
  'max-height:none',
  'min-height:0',
  'height:auto',
  'max-width:none',
  'overflow:visible',
  'margin:0',
  'text-indent:0',
  'letter-spacing:normal',
  'word-spacing:normal',
  'text-transform:none',
  'text-shadow:none',
  'text-decoration:none',
  'white-space:normal',
  'writing-mode:horizontal-tb',
  'vertical-align:middle',
  // A generic family: an @font-face of the sender cannot take that name and draw blanks.
  'font-family:sans-serif',
  'font-style:normal',
  'font-weight:normal',
  'font-size:15px',
  'line-height:1.45',
  'text-align:left',
  'color:#1a1a1a',
  '-webkit-text-fill-color:#1a1a1a',
];
/** RESET with `declarations` added; a declaration of the same property replaces RESET's. */
const styleOf = (...declarations: string[]) => {
  const property = (d: string) => d.slice(0, d.indexOf(':'));
  const own = new Set(declarations.map(property));
  return [...RESET.filter((d) => !own.has(property(d))), ...declarations]
    .map((d) => `${d} !important`)
    .join(';');
};

/** The inline styles of the banner's elements in one of the Smart Banners colours. */
function stylesOf(colour: BannerColour) {
  const { border, background } = BANNER_PALETTE[colour];
  return {
    table: styleOf(
      // Above anything the sender positions over it (an absolute block at the top, a negative margin).
      'position:relative',
      'z-index:2147483647',
      'display:table',
      'width:100%',
      'min-width:0',
      `border:2px solid ${border}`,
      'border-collapse:separate',
      'border-spacing:0',
      `background:${background}`,
      'padding:0',
    ),
    rowGroup: styleOf('display:table-row-group', 'border:0', `background:${background}`, 'padding:0'),
    row: styleOf('display:table-row', 'border:0', `background:${background}`, 'padding:0'),
    cell: styleOf(
      'display:table-cell',
      'border:0',
      `background:${background}`,
      'padding:12px 16px',
      'width:auto',
    ),
    text: styleOf('display:inline', 'border:0', `background:${background}`, 'padding:0'),
  };
}
const STYLES = new Map<BannerColour, ReturnType<typeof stylesOf>>();
const stylesFor = (colour: BannerColour) => {
  let styles = STYLES.get(colour);
  if (!styles) {
    styles = stylesOf(colour);
    STYLES.set(colour, styles);
  }
  return styles;
};

/** The colour of a banner when nothing else is said. */
export const DEFAULT_BANNER_COLOUR: BannerColour = 'orange';

/**
 * The banner's own stylesheet, placed before any of the sender's so its cascade layer is the
 * first declared: important declarations of the first layer outrank the sender's important ones,
 * layered or not (CSS Cascade 5 §6.4). It takes back every property the inline styles do not name
 * (`all: revert`), removes generated content a sender could lay over the text, and stops the
 * tricks on <html>/<body> that would make the whole page transparent, or clip, mask or move the
 * banner's strip of it alone (the banner's own declarations cannot undo what an ancestor does).
 */
function bannerStyle(id: string): string {
  const at = `#${id}`;
  return [
    `<style>@layer ${id}{`,
    `${at},${at} *{all:revert !important}`,
    `${at}::before,${at}::after,${at} *::before,${at} *::after{content:none !important;display:none !important}`,
    `${at} *::first-line,${at} *::first-letter,${at}::first-line,${at}::first-letter{all:revert !important}`,
    'html,body{opacity:1 !important;filter:none !important;content-visibility:visible !important;',
    'clip-path:none !important;mask:none !important;-webkit-mask:none !important;',
    'transform:none !important;translate:none !important;rotate:none !important;scale:none !important;',
    'display:block !important;top:auto !important;bottom:auto !important;margin-top:0 !important}',
    '}</style>',
  ].join('');
}

function bannerTable(id: string, warning: string, colour: BannerColour): string {
  const styles = stylesFor(colour);
  return (
    `<table role="presentation" id="${id}" width="100%" cellpadding="0" cellspacing="0" border="0" style="${styles.table}">` +
    `<tbody style="${styles.rowGroup}"><tr style="${styles.row}"><td style="${styles.cell}">` +
    `<span style="${styles.text}">${escapeHtml(warning)}</span>` +
    '</td></tr></tbody></table>'
  );
}

/** Elements the HTML parser keeps in <head> (HTML §13.2.6.4.4 "in head"). */
const HEAD_VOID = new Set(['base', 'basefont', 'bgsound', 'link', 'meta']);
/** Elements of <head> whose content is text up to their end tag (raw text, RCDATA). */
const HEAD_TEXT = new Set(['style', 'title', 'noframes']);
const SPACE = new Set([' ', '\t', '\n', '\r', '\f']);

export interface Token {
  kind: 'text' | 'comment' | 'start' | 'end';
  /** Tag name in ASCII lower case (tags only). */
  name: string;
  start: number;
  end: number;
}

/**
 * One token of HTML at `at`, read the way the HTML tokenizer reads it (HTML §13.2.5) as far as
 * the placement needs: comments, doctypes, tags with quoted attributes, text. Linear.
 */
export function tokenAt(html: string, at: number): Token {
  const n = html.length;
  if (html[at] !== '<') {
    const next = html.indexOf('<', at + 1);
    return { kind: 'text', name: '', start: at, end: next === -1 ? n : next };
  }
  if (html.startsWith('<!--', at)) {
    let end: number;
    if (html.startsWith('>', at + 4)) end = at + 5;
    else if (html.startsWith('->', at + 4)) end = at + 6;
    else {
      const close = html.indexOf('--', at + 4);
      end = n;
      for (let i = close; i !== -1; i = html.indexOf('--', i + 1)) {
        if (html[i + 2] === '>') {
          end = i + 3;
          break;
        }
        if (html[i + 2] === '!' && html[i + 3] === '>') {
          end = i + 4;
          break;
        }
      }
    }
    return { kind: 'comment', name: '', start: at, end };
  }
  const c = html[at + 1] ?? '';
  const isLetter = /[A-Za-z]/.test(c);
  const isEnd = c === '/' && /[A-Za-z]/.test(html[at + 2] ?? '');
  if (c === '!' || c === '?' || (c === '/' && !isEnd)) {
    // A doctype or a bogus comment: up to the next '>'.
    const close = html.indexOf('>', at + 1);
    return { kind: 'comment', name: '', start: at, end: close === -1 ? n : close + 1 };
  }
  if (!isLetter && !isEnd) return { kind: 'text', name: '', start: at, end: at + 1 };
  let i = at + (isEnd ? 2 : 1);
  const nameStart = i;
  while (i < n && !SPACE.has(html[i]!) && html[i] !== '/' && html[i] !== '>') i++;
  const name = html.slice(nameStart, i).replace(/[A-Z]+/g, (m) => m.toLowerCase());
  // Attributes: a name, then perhaps `=` and a value, quoted or not.
  while (i < n) {
    while (i < n && (SPACE.has(html[i]!) || html[i] === '/')) i++;
    if (i >= n || html[i] === '>') break;
    i++; // the first character of an attribute name may be anything, '=' included
    while (i < n && !SPACE.has(html[i]!) && html[i] !== '/' && html[i] !== '>' && html[i] !== '=') i++;
    while (i < n && SPACE.has(html[i]!)) i++;
    if (html[i] !== '=') continue;
    i++;
    while (i < n && SPACE.has(html[i]!)) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      i = close === -1 ? n : close + 1;
    } else {
      while (i < n && !SPACE.has(html[i]!) && html[i] !== '>') i++;
    }
  }
  return { kind: isEnd ? 'end' : 'start', name, start: at, end: Math.min(n, i + 1) };
}

/** Where the text of a raw text element opened before `at` ends: at its end tag, or at the end. */
export function endOfText(lower: string, name: string, at: number): number {
  for (let i = lower.indexOf(`</${name}`, at); i !== -1; i = lower.indexOf(`</${name}`, i + 1)) {
    const after = lower[i + name.length + 2];
    if (after === undefined || after === '>' || after === '/' || SPACE.has(after)) return i;
  }
  return lower.length;
}

/**
 * Where the banner goes in `html` and where its stylesheet goes. The banner goes where the body's
 * content starts: right after the opening <body> tag, else after </head> (or the doctype,
 * <html>, <head> content), else at the start; never inside a comment, an attribute, the text of a
 * <style> or <title>, or an element the sender opened before a late <body> tag (it would inherit
 * its `display:none`). Whatever <head> holds that the parser might read another way (<script>,
 * <noscript>, <template>) or that opens the body (anything else) makes the banner go before it,
 * where the parser starts the body with the banner itself. The stylesheet goes after the doctype,
 * <html> and <head> tags, before any of the sender's own.
 */
export function bannerPlacement(html: string): { banner: number; style: number } {
  const lower = html.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  let style: number | null = null;
  let at = 0;
  while (at < html.length) {
    const token = tokenAt(html, at);
    const leading =
      token.kind === 'comment' ||
      (token.kind === 'text' && !/[^ \t\n\r\f]/.test(html.slice(token.start, token.end))) ||
      (token.kind === 'start' && (token.name === 'html' || token.name === 'head'));
    if (!leading && style === null) style = token.start;
    if (leading) {
      at = token.end;
      continue;
    }
    if (token.kind === 'start' && token.name === 'body') return { banner: token.end, style: style ?? 0 };
    if (token.kind === 'end' && token.name === 'head') {
      at = token.end;
      continue;
    }
    if (token.kind === 'start' && HEAD_VOID.has(token.name)) {
      at = token.end;
      continue;
    }
    if (token.kind === 'start' && HEAD_TEXT.has(token.name)) {
      const textEnd = endOfText(lower, token.name, token.end);
      at = textEnd >= html.length ? textEnd : tokenAt(html, textEnd).end;
      continue;
    }
    // The body starts here.
    return { banner: token.start, style: style ?? token.start };
  }
  return { banner: html.length, style: style ?? html.length };
}

/** A random id per banner: the sender cannot name it in a selector. */
const bannerId = () => `moat-warning-${randomBytes(8).toString('hex')}`;

/** `html` with the warning banner at the start of its body and the banner's stylesheet first. */
export function htmlWithBanner(
  html: string,
  warning: string,
  id: string = bannerId(),
  colour: BannerColour = DEFAULT_BANNER_COLOUR,
): string {
  const { banner, style } = bannerPlacement(html);
  return (
    html.slice(0, style) +
    bannerStyle(id) +
    html.slice(style, banner) +
    bannerTable(id, warning, colour) +
    html.slice(banner)
  );
}

/** The subject with the tag in front ("[Suspicious] Your parcel"), once; '' : as it is. */
export function taggedSubject(subject: string, tag: string): string {
  const own = tag.trim();
  if (own === '' || subject.startsWith(own)) return subject;
  return subject === '' ? own : `${own} ${subject}`;
}

/** How one delivered message is warned: the words, the colour and the subject tag. */
export interface BannerLook {
  warning: string;
  colour: BannerColour;
  subjectTag: string;
}

/** The banner a message of `verdict` gets under the tenant's Smart Banners settings. */
export function bannerLookOf(
  settings: StoredBannerSettings,
  verdict: Verdict,
  reasons: string[],
): BannerLook {
  const style = (BANNER_VERDICTS as readonly string[]).includes(verdict)
    ? settings.verdicts[verdict as BannerVerdict]
    : null;
  return {
    warning: warningText(verdict, reasons, style?.text),
    colour: style?.colour ?? DEFAULT_BANNER_COLOUR,
    subjectTag: style?.subject_tag ?? '',
  };
}

/** The plain text warning: the warning, a separator line, then the message's text. */
const TEXT_SEPARATOR = '-'.repeat(72);

/**
 * The message with the warning above its content (text and HTML), attachments kept; in the
 * colour and with the subject tag given (Smart Banners), else orange and the subject as it is.
 */
export async function bannerCopy(
  parsed: ParsedMessage,
  recipient: string,
  warning: string,
  authHeaders: string,
  look: Partial<Omit<BannerLook, 'warning'>> = {},
): Promise<Buffer> {
  // One line: it also goes into a header.
  const oneLine = warning.replace(/\s+/g, ' ').trim();
  const MailComposer = await mailComposer();
  const composer = new MailComposer({
    from: parsed.fromName ? { name: parsed.fromName, address: parsed.fromAddress } : parsed.fromAddress,
    to: recipient,
    subject: taggedSubject(parsed.subject, look.subjectTag ?? ''),
    date: parsed.date ?? undefined,
    messageId: parsed.messageId ?? undefined,
    text: `${oneLine}\n${TEXT_SEPARATOR}\n\n${parsed.text}`,
    ...(parsed.html
      ? { html: htmlWithBanner(parsed.html, oneLine, undefined, look.colour ?? DEFAULT_BANNER_COLOUR) }
      : {}),
    attachments: parsed.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
    })),
    headers: { 'X-Moat-Warning': headerWarning(oneLine) },
  });
  return Buffer.concat([Buffer.from(authHeaders), await composer.compile().build()]);
}

/** Where the folding white space and comments (nested, with quoted pairs) from `i` end. */
function afterCfws(value: string, from: number): number {
  let i = from;
  for (;;) {
    while (i < value.length && /\s/.test(value[i]!)) i++;
    if (value[i] !== '(') return i;
    let depth = 0;
    for (; i < value.length; i++) {
      if (value[i] === '\\') i++;
      else if (value[i] === '(') depth++;
      else if (value[i] === ')' && --depth === 0) {
        i++;
        break;
      }
    }
  }
}

/**
 * The authserv-id of an Authentication-Results value (RFC 8601 §2.2): its first token, unquoted;
 * of an ARC-Authentication-Results value (RFC 8617 §4.1.1), the token after its `i=` tag.
 */
function authservIdOf(value: string, arc: boolean): string {
  let i = afterCfws(value, 0);
  if (arc) {
    const instance = /^i[ \t]*=[ \t]*\d+[ \t]*;/i.exec(value.slice(i));
    if (instance) i = afterCfws(value, i + instance[0].length);
  }
  if (value[i] === '"') {
    let id = '';
    for (i++; i < value.length && value[i] !== '"'; i++) {
      if (value[i] === '\\') i++;
      id += value[i] ?? '';
    }
    return id;
  }
  const start = i;
  while (i < value.length && !/[\s;()"]/.test(value[i]!)) i++;
  return value.slice(start, i);
}

/** An authserv-id as compared: in lower case, without the trailing dot of a fully qualified name. */
const comparableId = (id: string) => id.trim().toLowerCase().replace(/\.+$/, '');

/**
 * The message without the Authentication-Results and ARC-Authentication-Results fields of its
 * top-level header that claim to come from `authservId` (our own host, with or without a trailing
 * dot, in any case): a sender may write them to look verified, and RFC 8601 §5 has the border MTA
 * remove them. Folded continuation lines go with their field; everything else, other
 * authserv-ids' fields and the body included, stays byte for byte.
 */
export function stripForgedAuthResults(raw: Buffer, authservId: string): Buffer {
  const ours = comparableId(authservId);
  const kept: Buffer[] = [];
  let removed = false;
  let at = 0;
  let fieldStart = 0;
  let dropField = false;
  const lineEnd = (from: number) => {
    const lf = raw.indexOf(10, from);
    return lf === -1 ? raw.length : lf + 1;
  };
  const closeField = (end: number) => {
    if (dropField) removed = true;
    else if (end > fieldStart) kept.push(raw.subarray(fieldStart, end));
  };
  while (at < raw.length) {
    const next = lineEnd(at);
    const first = raw[at];
    // The empty line that ends the header block.
    if (first === 10 || (first === 13 && raw[at + 1] === 10)) break;
    if (first !== 32 && first !== 9) {
      // A new field: the one before it is complete.
      closeField(at);
      fieldStart = at;
      dropField = false;
      const name = /^(arc-)?authentication-results[ \t]*:/i.exec(
        raw.toString('latin1', at, Math.min(next, at + 64)),
      );
      if (name) {
        // Its whole value, continuation lines included, unfolded.
        let end = next;
        while (end < raw.length && (raw[end] === 32 || raw[end] === 9)) end = lineEnd(end);
        const value = raw.toString('latin1', at + name[0].length, end).replace(/\r?\n(?=[ \t])/g, '');
        dropField = ours !== '' && comparableId(authservIdOf(value, Boolean(name[1]))) === ours;
      }
    }
    at = next;
  }
  closeField(at);
  if (!removed) return raw;
  return Buffer.concat([...kept, raw.subarray(at)]);
}
