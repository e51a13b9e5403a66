import {
  BRANDS,
  brandImitatedBy,
  brandOfDisplayName,
  isBrandDomain,
  isFreeMail,
} from '../phishing/brands.ts';
import { lookalikeOf } from '../phishing/lookalike.ts';
import { brandOwning } from '../phishing/urls.ts';
import type { AuthSummary, EngineInput, MessageLink, ScoredRule } from '../types.ts';
import { isListedSender } from './known-senders.ts';
import { header, type MessageFacts } from './message-facts.ts';

/**
 * The embedded engine's structural rules: traits of a message's make-up that spam has and mail
 * people write rarely has, each with its weight on the spam scale (positive: spam-like). Weights
 * were set on the training part of the corpus (never on its held-out part).
 */
export interface RuleInput {
  facts: MessageFacts;
  subject: string;
  text: string;
  html: string | null;
  links: MessageLink[];
  auth: AuthSummary | null;
  /** Who the authenticated sender is, when it is someone known (see knownSender). */
  knownSender?: KnownSender | null;
}

/**
 * An authenticated sender the engine knows: a well-known brand, the tenant itself, one of its
 * partners, or a sender of SpamAssassin's and rspamd's welcome lists (known-senders.ts).
 */
export type KnownSender = 'brand' | 'own' | 'partner' | 'listed';

/**
 * Whom mail comes from when its From domain proved itself (DMARC pass, so SPF or DKIM aligned):
 * a brand of the anti-phishing table (its own domain, never free mail, where anyone has an
 * address), the tenant's own domains, the partners learned from its mail flow, or a sender of the
 * welcome lists real filters ship. The shipped model learned 2002's mail; today's notifications
 * from these senders read to it like spam.
 */
export function knownSender(
  fromAddress: string,
  auth: AuthSummary | null,
  tenant?: { domains: string[]; partners?: string[] | undefined },
): KnownSender | null {
  if (auth?.dmarc !== 'pass') return null;
  const domain = (fromAddress.split('@')[1] ?? '').toLowerCase();
  if (!domain || isFreeMail(domain)) return null;
  const under = (list: readonly string[]) => list.some((d) => domain === d || domain.endsWith(`.${d}`));
  if (tenant && under(tenant.domains)) return 'own';
  if (tenant?.partners && under(tenant.partners)) return 'partner';
  if (BRANDS.some((brand) => isBrandDomain(domain, brand))) return 'brand';
  return isListedSender(domain) ? 'listed' : null;
}

/**
 * Whether the classifier should leave a message's make-up (MAKE_UP_TOKEN) out and judge its
 * words only. Only for a sender that proved its From domain (DMARC pass) and answers for its
 * mail under that name: a known sender (knownSender), or a mailing list or newsletter (it says
 * how to unsubscribe, List-Unsubscribe or List-Id) from a domain that is no free mail service
 * (where anyone has an address), imitates no brand, nor the tenant's or its partners' domains,
 * and whose display name claims no brand the domain is not. What is left to judge is what it
 * says. Any other mail keeps its make-up judged: a stranger's authenticated domain proves only
 * that it owns the domain (lookalike domains authenticate too), and impersonation is the
 * anti-phishing engine's to judge.
 */
export function makeUpNotJudged(
  input: Pick<EngineInput, 'parsed'> & {
    auth: EngineInput['auth'] | null;
    tenant?: { domains: string[]; partners?: string[] | undefined };
  },
  facts: MessageFacts,
  known: KnownSender | null,
): boolean {
  if (input.auth?.dmarc !== 'pass') return false;
  if (known) return true;
  if (!header(facts, 'list-unsubscribe') && !header(facts, 'list-id')) return false;
  const domain = (input.parsed.fromAddress.split('@')[1] ?? '').toLowerCase();
  if (!domain || isFreeMail(domain) || brandImitatedBy(domain)) return false;
  const protectedDomains = [...(input.tenant?.domains ?? []), ...(input.tenant?.partners ?? [])];
  if (lookalikeOf(domain, protectedDomains)) return false;
  const claimed = brandOfDisplayName(input.parsed.fromName);
  return !claimed || isBrandDomain(domain, claimed);
}

interface Rule {
  name: string;
  score: number;
  description: string;
  test(input: RuleInput): boolean;
}

const IP_HOST = /^(?:\d{1,3}\.){3}\d{1,3}$|^\[/;

function hostOf(href: string): string | null {
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}

/** The host a link's text shows, when the text is itself a web address. */
function shownHost(text: string): string | null {
  const match = text.trim().match(/^(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]\S*)?$/i);
  return match?.[1]?.toLowerCase() ?? null;
}

const registrable = (host: string) =>
  host
    .replace(/^www\./, '')
    .split('.')
    .slice(-2)
    .join('.');

/** Text hidden from the reader: zero or tiny fonts, display:none, white text. */
const INVISIBLE =
  /(?:font-size\s*:\s*[01](?:px|pt)?\s*[;"'])|(?:display\s*:\s*none)|(?:visibility\s*:\s*hidden)|(?:<font[^>]*color\s*=\s*["']?#?(?:fff|ffffff|white)\b)/i;

/**
 * A preheader: the line of preview text a mail client shows beside the subject, which every
 * newsletter and notification template hides at the top of the body (a hidden div or span of a
 * sentence or two). It hides nothing from the reader that the reader is not shown in the inbox.
 */
const PREHEADER =
  /<(div|span|p)\b[^>]{0,200}?style\s*=\s*["'][^"']{0,300}?(?:display\s*:\s*none|max-height\s*:\s*0|mso-hide\s*:\s*all)[^"']{0,300}["'][^>]{0,200}>([^<]{0,300})<\/\1>/i;

/** The HTML with its preheader (when the body opens with one) taken out. */
function withoutPreheader(html: string): string {
  const body = /<body\b[^>]{0,1000}>/i.exec(html);
  const start = body ? body.index + body[0].length : 0;
  const head = html.slice(start, start + 3000);
  const found = PREHEADER.exec(head);
  // Only a block at the opening, before any text a reader sees.
  if (
    !found ||
    head
      .slice(0, found.index)
      .replace(/<[^>]*>/g, '')
      .trim() !== ''
  )
    return html;
  const at = start + found.index;
  return html.slice(0, at) + html.slice(at + found[0].length);
}

const textLength = (input: RuleInput) => input.text.replace(/\s+/g, '').length;

export const RULES: Rule[] = [
  {
    name: 'LINK_TO_IP',
    score: 1.5,
    description: 'A link goes to a bare IP address instead of a name',
    test: ({ links }) => links.some((l) => IP_HOST.test(hostOf(l.href) ?? '')),
  },
  {
    name: 'MISMATCHED_LINK_TEXT',
    score: 0.5,
    description: 'A link shows one web address and leads to another',
    test: ({ links }) =>
      links.some((l) => {
        const shown = shownHost(l.text);
        const real = hostOf(l.href);
        if (!shown || !real || registrable(shown) === registrable(real)) return false;
        // A brand's link to its own site through its own click-tracking domain
        // (www.paypal.com shown, epl.paypal-communication.com followed) is no mismatch.
        const brand = brandOwning(shown);
        return !(brand && isBrandDomain(real, brand));
      }),
  },
  {
    name: 'OBFUSCATED_URL',
    score: 2,
    description: 'A link hides its real host (user name before @, encoded or numeric host)',
    test: ({ links }) =>
      links.some((l) => {
        const authority = l.href.trim().match(/^https?:\/\/([^/?#]*)/i)?.[1] ?? '';
        return (
          authority.includes('@') ||
          /%[0-9a-f]{2}/i.test(authority) ||
          /^(?:0x[0-9a-f]+|\d{8,10})(?::\d+)?$/i.test(authority)
        );
      }),
  },
  {
    name: 'HTML_INVISIBLE_TEXT',
    score: 1,
    description: 'The HTML hides text from the reader (tiny, invisible or white text)',
    // Not the preheader a template hides at the top for the inbox's preview line.
    test: ({ html }) => Boolean(html && INVISIBLE.test(withoutPreheader(html.slice(0, 200_000)))),
  },
  {
    name: 'HTML_ONLY',
    score: 0.5,
    description: 'The message is only HTML, with no plain-text version',
    test: ({ facts }) =>
      facts.parts.some((p) => p.contentType === 'text/html') &&
      !facts.parts.some((p) => p.contentType === 'text/plain'),
  },
  {
    name: 'HTML_IMAGE_ONLY',
    score: 1.5,
    description: 'The HTML is mostly images with little text',
    test: (input) => Boolean(input.html && /<img\b/i.test(input.html) && textLength(input) < 200),
  },
  {
    name: 'BOGUS_MULTIPART',
    score: 1.5,
    description: 'The message claims several parts but gives no boundary between them',
    test: ({ facts }) => facts.parts.some((p) => p.contentType.startsWith('multipart/') && !p.boundary),
  },
  {
    name: 'MULTIPART_ALT_SINGLE',
    score: 1,
    description: 'The message offers "alternative" versions but holds only one',
    test: ({ facts }) => facts.parts[0]?.contentType === 'multipart/alternative' && facts.parts.length === 2,
  },
  {
    name: 'BASE64_TEXT',
    score: 1.5,
    description: 'Plain text sent base64-encoded, which hides its words from simple filters',
    test: ({ facts }) =>
      facts.parts.some(
        (p) =>
          (p.contentType === 'text/plain' || p.contentType === 'text/html') &&
          p.encoding === 'base64' &&
          (p.charset === '' || p.charset === 'us-ascii' || p.charset === 'iso-8859-1'),
      ),
  },
  {
    name: 'FORGED_OUTLOOK',
    score: 1,
    description: 'The mailer claims to be Outlook but the message is not made the way Outlook makes it',
    test: ({ facts }) => {
      const mailer = header(facts, 'x-mailer').toLowerCase();
      if (!mailer.includes('outlook')) return false;
      const id = header(facts, 'message-id');
      // Outlook writes a Message-ID and X-MimeOLE (Express) or Thread-Index (Outlook): neither is forged spam's habit.
      return !id || (!facts.headers.has('x-mimeole') && !facts.headers.has('thread-index'));
    },
  },
  {
    name: 'MISSING_DATE',
    score: 1,
    description: 'The message has no Date header',
    test: ({ facts }) => !facts.headers.has('date'),
  },
  {
    name: 'MISSING_MESSAGE_ID',
    score: 0.5,
    description: 'The message has no Message-ID header',
    test: ({ facts }) => !facts.headers.has('message-id'),
  },
  {
    name: 'SUBJECT_SHOUTING',
    score: 1,
    description: 'The subject is in capitals or full of exclamation marks',
    test: ({ subject }) => {
      const letters = subject.replace(/[^a-z]/gi, '');
      return (letters.length >= 10 && letters === letters.toUpperCase()) || /!{2,}|!.*!.*!/.test(subject);
    },
  },
  {
    name: 'SUBJECT_PADDED_TAG',
    score: 1.5,
    description:
      'The subject is padded with spaces, often before a tracking number, to look unique to filters',
    // Bulk senders pad subjects ("Your offer        8237") so no two copies match; people do not.
    test: ({ subject }) => /\s{5,}\S|\s{3,}\S*\d{3,}\S*\s*$/.test(subject),
  },
  {
    name: 'BODY_SHOUTING',
    score: 1,
    description: 'More than a quarter of the words of a long text are in capitals',
    test: ({ text }) => {
      const words = text.slice(0, 50_000).match(/\b[A-Za-z]{4,}\b/g) ?? [];
      return words.length > 40 && words.filter((w) => w === w.toUpperCase()).length / words.length > 0.25;
    },
  },
  {
    name: 'DATE_NO_TIMEZONE',
    score: 1,
    description: 'The Date header gives no time zone, which mail programs always write',
    test: ({ facts }) => {
      const date = header(facts, 'date');
      return date !== '' && !/[+-]\d{4}|\b(?:GMT|UTC?|[ECMP][SD]T|Z)\b/i.test(date);
    },
  },
  {
    name: 'MESSAGE_ID_NO_AT',
    score: 1,
    description: 'The Message-ID has no @, so no mail program wrote it',
    test: ({ facts }) => {
      const id = header(facts, 'message-id');
      return id !== '' && !id.includes('@');
    },
  },
  {
    name: 'X_PRIORITY_HIGH',
    score: 0.5,
    description: 'The message asks to be shown as urgent (X-Priority 1)',
    test: ({ facts }) => /^\s*1\b/.test(header(facts, 'x-priority')),
  },
  {
    name: 'FROM_NO_NAME_NUMERIC',
    score: 0.3,
    description: "The sender's address is mostly digits",
    test: ({ facts }) => /[0-9]{5,}[^@]*@/.test(header(facts, 'from')),
  },
  {
    name: 'DMARC_FAIL',
    score: 2,
    description: "The sender's domain says mail like this is not from it (DMARC fail)",
    test: ({ auth }) => auth?.dmarc === 'fail',
  },
  {
    name: 'AUTHENTICATED_KNOWN_SENDER',
    score: -3,
    description:
      'The sender proved its domain (DMARC pass), and it is a well-known brand, this organisation, one of its regular partners or a sender on the welcome lists real filters ship',
    test: ({ knownSender }) => Boolean(knownSender),
  },
  {
    name: 'SPF_FAIL',
    score: 1,
    description: 'The sending server is not allowed to send for the envelope domain (SPF fail)',
    test: ({ auth }) => auth?.spf === 'fail',
  },
];

export function ruleHits(input: RuleInput): ScoredRule[] {
  return RULES.filter((rule) => rule.test(input)).map(({ name, score, description }) => ({
    name,
    score,
    description,
  }));
}
