import type { MessageLink } from '../types.ts';
import { header, type MessageFacts } from './message-facts.ts';

/**
 * The tokens the Bayesian classifier learns and weighs, after SpamBayes's tokenizer: the words of
 * the subject and body (3 to 12 characters, lower-cased; longer ones as their first letter and
 * length), what the sender's headers say (mailer, name, domain, reply-to), the MIME structure
 * (types, charsets, encodings), the HTML's tags and the styles it sets, and the links' hosts and schemes. Each
 * token once per message. Headers that only say where a message travelled (Received,
 * Delivered-To, Message-ID hosts) are left out: they teach a site's own paths, not spam.
 */

const MAX_BODY_CHARS = 200_000;
const MAX_TOKENS = 3_000;
const WORD = /[^\s]+/g;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
/** Characters trimmed from a word's ends (quotes, brackets, trailing punctuation). */
const EDGES = /^[("'`[<{*]+|[)"'`\]>}.,;:!?*]+$/g;

function wordTokens(text: string, prefix: string, out: Set<string>): void {
  for (const match of text.slice(0, MAX_BODY_CHARS).matchAll(WORD)) {
    if (out.size >= MAX_TOKENS) return;
    const word = match[0].replace(EDGES, '').toLowerCase();
    if (CJK.test(word)) {
      // Chinese, Japanese and Korean put no spaces between words: their characters in pairs.
      for (let i = 0; i + 2 <= word.length && i < 100; i++) out.add(`${prefix}cjk:${word.slice(i, i + 2)}`);
      continue;
    }
    if (word.length < 3) continue;
    if (word.length > 12) {
      if (word.includes('@')) {
        const [name, domain] = word.split('@');
        out.add(`${prefix}email name:${name?.slice(0, 20)}`);
        for (const piece of (domain ?? '').split('.')) if (piece) out.add(`${prefix}email addr:${piece}`);
      } else if (/^https?:/.test(word)) {
        continue; // the links are tokenized from the link list
      } else {
        out.add(`${prefix}skip:${word[0]} ${Math.floor(word.length / 10) * 10}`);
      }
      continue;
    }
    out.add(prefix + word);
  }
}

/** A link's scheme and host pieces (`url:example`, `url:com`), SpamBayes's way. */
function linkTokens(links: MessageLink[], out: Set<string>): void {
  for (const link of links.slice(0, 200)) {
    let url: URL;
    try {
      url = new URL(link.href.trim());
    } catch {
      out.add('url:unparsable');
      continue;
    }
    out.add(`proto:${url.protocol.replace(':', '')}`);
    if (url.port) out.add('url:port');
    const host = url.hostname.toLowerCase();
    if (/^[\d.]+$/.test(host) || host.startsWith('[')) out.add('url:ip');
    for (const piece of host.split('.')) if (piece) out.add(`url:${piece}`);
    for (const piece of url.pathname.split(/[/._-]+/).slice(0, 6)) {
      if (piece.length >= 3 && piece.length <= 12) out.add(`url:path:${piece.toLowerCase()}`);
    }
    if (url.search) out.add('url:query');
  }
}

const HTML_TAG = /<\s*([a-z][a-z0-9]*)\b([^>]{0,500})>/gi;
const STYLE_BITS = /(font-size|color|display|visibility|background|position)\s*:\s*([^;"']{1,20})/gi;

function htmlTokens(html: string, out: Set<string>): void {
  for (const [, tag, attrs] of html.slice(0, MAX_BODY_CHARS).matchAll(HTML_TAG)) {
    if (out.size >= MAX_TOKENS) return;
    const name = (tag ?? '').toLowerCase();
    out.add(`html:${name}`);
    // Not which attributes each tag has (`html:td:width`): the commercial newsletters people want
    // are built of the same tables and fonts as spam, and those tokens flagged them (training
    // folds: 10 of 1,811 ham flagged with them, 9 without, for 4 fewer of 333 spam caught).
    for (const [, prop, value] of (attrs ?? '').matchAll(STYLE_BITS)) {
      out.add(`style:${(prop ?? '').toLowerCase()}:${(value ?? '').trim().toLowerCase()}`);
    }
  }
}

/** The domain of an address in a header value, '' when none. */
const domainIn = (value: string) => value.match(/@([a-z0-9.-]+)/i)?.[1]?.toLowerCase() ?? '';

function headerTokens(facts: MessageFacts, out: Set<string>): void {
  const from = header(facts, 'from');
  const fromDomain = domainIn(from);
  out.add(fromDomain ? `from:domain:${fromDomain.split('.').slice(-2).join('.')}` : 'from:domain:none');
  const name = from
    .replace(/<[^>]*>/g, '')
    .replace(/"/g, '')
    .trim();
  if (!name || name.includes('@')) out.add('from:noname');
  else wordTokens(name, 'from:name:', out);
  // The character sets a sender's software writes its subject and name in (=?gb2312?B?…?=).
  for (const field of ['subject', 'from']) {
    for (const [, charset] of header(facts, field).matchAll(/=\?([^?]{1,40})\?[bq]\?/gi)) {
      out.add(`${field}:charset:${(charset ?? '').toLowerCase()}`);
    }
  }
  const replyTo = header(facts, 'reply-to');
  if (replyTo) out.add(domainIn(replyTo) === fromDomain ? 'reply-to:same' : 'reply-to:other');
  const mailer = header(facts, 'x-mailer') || header(facts, 'user-agent');
  // No "mailer:none": most mail software today writes no X-Mailer, unlike the corpus's years.
  if (mailer) out.add(`mailer:${mailer.toLowerCase().split(/[\s/(;]+/)[0]}`);
  const to = [...(facts.headers.get('to') ?? []), ...(facts.headers.get('cc') ?? [])].join(',');
  const recipients = to.split(',').filter((r) => r.includes('@')).length;
  out.add(`to:count:${recipients === 0 ? 0 : 2 ** Math.floor(Math.log2(recipients))}`);
  if (!facts.headers.has('date')) out.add('header:no-date');
  if (!facts.headers.has('message-id')) out.add('header:no-message-id');
  for (const name of facts.headers.keys()) {
    // Which optional headers a sender's software writes (X-Priority, List-Id, X-MSMail-Priority…).
    if (name.startsWith('x-') || name.startsWith('list-')) {
      if (!name.startsWith('x-spam') && !name.startsWith('x-virus')) out.add(`header:${name}`);
    }
  }
  // The parts' types, not their charsets and encodings: UTF-8 and quoted-printable were rare in
  // the corpus's ham and are what every mail program writes today (the rules judge encodings).
  for (const part of facts.parts) out.add(`content-type:${part.contentType}`);
}

export interface TokenSource {
  facts: MessageFacts;
  subject: string;
  text: string;
  html: string | null;
  links: MessageLink[];
}

export function tokensOf(message: TokenSource): string[] {
  const out = new Set<string>();
  headerTokens(message.facts, out);
  wordTokens(message.subject, 'subject:', out);
  if (message.html) htmlTokens(message.html, out);
  linkTokens(message.links, out);
  wordTokens(message.text, '', out);
  return [...out];
}

/**
 * Tokens of a message's make-up rather than its words: its HTML tags and styles, its MIME types,
 * its optional headers, mailer, link schemes and number of recipients. The shipped model learned
 * them from 2002's mail, when HTML mail was mostly spam; today every sender's notifications are
 * HTML built the same way, so for a sender that proved its domain they say how the mail was
 * made, not whether it is wanted (see `makeUpNotJudged` in rules.ts).
 */
export const MAKE_UP_TOKEN = /^(?:html|style|content-type|header|mailer|proto|to):/;

/** A token's 32-bit key (FNV-1a over its UTF-16 units): what the model and the database keep. */
export function tokenKey(token: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < token.length; i++) {
    hash ^= token.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash | 0;
}
