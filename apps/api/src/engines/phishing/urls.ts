import { isIP } from 'node:net';
import type { MessageLink } from '../types.ts';
import { BRANDS, type Brand, brandImitatedBy, brandNamedIn, isBrandDomain } from './brands.ts';
import type { Evidence } from './evidence.ts';
import { lookalikeOf, readableDomain, registrable, siteOf } from './lookalike.ts';

/** Services that hide where a link goes until it is followed. */
const SHORTENERS = new Set(
  'bit.ly bitly.com tinyurl.com t.co goo.gl ow.ly is.gd v.gd buff.ly rebrand.ly cutt.ly shorturl.at rb.gy t.ly tiny.cc lnkd.in s.id qrco.de bl.ink short.io shorte.st adf.ly soo.gd clck.ru u.to surl.li tr.ee 2u.pm'.split(
    ' ',
  ),
);

/**
 * Hosting and form services anyone can publish a page on in a minute, free: where credential
 * pages live today (Firebase, Cloudflare Pages and Workers, GitHub Pages, IPFS gateways, site
 * builders, form builders). Matched as the host or a suffix of it.
 */
const FREE_HOSTING = [
  'web.app',
  'firebaseapp.com',
  'firebasestorage.googleapis.com',
  'storage.googleapis.com',
  'appspot.com',
  'pages.dev',
  'workers.dev',
  'r2.dev',
  'github.io',
  'gitlab.io',
  'netlify.app',
  'vercel.app',
  'herokuapp.com',
  'glitch.me',
  'onrender.com',
  'ngrok.io',
  'ngrok-free.app',
  'ngrok.app',
  'trycloudflare.com',
  'loca.lt',
  'blogspot.com',
  'weebly.com',
  'weeblysite.com',
  'wixsite.com',
  'webflow.io',
  'square.site',
  'godaddysites.com',
  '000webhostapp.com',
  'repl.co',
  'replit.app',
  'replit.dev',
  'surge.sh',
  'azurewebsites.net',
  'blob.core.windows.net',
  'web.core.windows.net',
  's3.amazonaws.com',
  'ipfs.io',
  'dweb.link',
  'cloudflare-ipfs.com',
  'fleek.co',
  'notion.site',
  'typeform.com',
  'jotform.com',
  'formstack.com',
  'wufoo.com',
  'forms.gle',
  'sites.google.com',
  'forms.office.com',
  'forms.microsoft.com',
  'canva.site',
  'framer.app',
  'carrd.co',
  'wordpress.com',
  'yolasite.com',
  'mystrikingly.com',
];
/**
 * Mailing services' shared click-tracking hosts: a newsletter's or a notification's links pass
 * through them on their way to the sender's pages, so a link's text there names where the reader
 * ends up, not the tracker.
 */
const ESP_TRACKING = [
  'sendgrid.net',
  'list-manage.com',
  'mailchi.mp',
  'mandrillapp.com',
  'hubspotlinks.com',
  'hubspotemail.net',
  'createsend.com',
  'cmail19.com',
  'cmail20.com',
  'sparkpostmail.com',
  'exacttarget.com',
  'rs6.net',
  'klclick.com',
  'klclick1.com',
  'klclick2.com',
  'awstrack.me',
  'mlsend.com',
  'convertkit-mail.com',
  'convertkit-mail2.com',
  'pstmrk.it',
  'customeriomail.com',
  'links.iterable.com',
  'mailgun.org',
  'sendibt2.com',
  'sendibt3.com',
  'mcsv.net',
];

/** Whether a link's host is a free hosting or forms service's (anyone's page, whoever owns the service). */
export function isFreeHosting(host: string): boolean {
  return matchesSuffix(host, FREE_HOSTING) !== null || FREE_HOSTING_PATHS.some((p) => p.test(`${host}/`));
}

/**
 * Whether a link's host is the brand's own: one of its domains, and not one of its hosting or
 * forms services where anyone publishes (sites.google.com, forms.office.com, an S3 bucket).
 */
export function isBrandHost(host: string, brand: Brand): boolean {
  return isBrandDomain(host, brand) && !isFreeHosting(host);
}

const FREE_HOSTING_PATHS = [
  /^docs\.google\.com\/forms\//,
  /^[a-z0-9-]+\.s3[.-][a-z0-9-]*\.?amazonaws\.com\//,
];

/** Query parameters that carry where a link really goes (open redirects of trusted hosts). */
const REDIRECT_PARAM =
  /^(?:url|u|q|redirect|redirect_uri|redirect_url|redirecturl|return|returnurl|return_to|next|dest|destination|target|goto|link|to|continue|r|rurl|adurl)$/i;

/** Words of a link that asks for a sign-in, a payment or a document: what a lure's button says. */
export const CREDENTIAL_CALL =
  /\b(?:sign[ -]?in|log[ -]?in|log ?on|verify|confirm|validate|unlock|re-?activate|restore|update (?:your |my )?(?:account|details|payment|billing|information|password)|reset (?:your )?password|keep (?:my |your )?password|review (?:the )?(?:document|invoice|file)|view (?:the )?(?:document|invoice|file|message|voicemail)|open (?:the )?(?:document|file|attachment|secure message)|access (?:the )?(?:document|file|account|mailbox)|download (?:the )?(?:document|invoice|file)|claim|pay\b|release (?:the |your |my )?(?:parcel|package|shipment|message|messages|mail|emails?|payment|funds)|reschedule|approve|accept (?:the )?(?:invitation|document|payment|transfer)|retrieve|secure (?:your |my )?account|check (?:your )?account|track (?:your )?(?:parcel|package|shipment))\b/i;

export function hostOf(href: string): string | null {
  try {
    const url = new URL(href.trim());
    return url.protocol === 'http:' || url.protocol === 'https:'
      ? url.hostname.toLowerCase().replace(/\.$/, '')
      : null;
  } catch {
    return null;
  }
}

/** The host a link's text shows when the text is itself a web address (www.x.y, https://x.y/…). */
export function shownHost(text: string): string | null {
  // A link's text as an address is short; bounded, the pattern cannot take long on any text.
  const shown = text.trim();
  if (shown.length > 300) return null;
  const match = /^(?:https?:\/\/)?((?:[a-z0-9-]+\.)+[a-z]{2,})(?:[/:?#]\S*)?$/i.exec(shown);
  return match ? match[1]!.toLowerCase() : null;
}

export const sameSite = (a: string, b: string) => siteOf(a) === siteOf(b);

const matchesSuffix = (host: string, suffixes: Iterable<string>) => {
  for (const s of suffixes) if (host === s || host.endsWith(`.${s}`)) return s;
  return null;
};

/** Mixed scripts in one label (Latin with Cyrillic or Greek): how IDN lookalikes are made. */
function mixedScript(host: string): boolean {
  const readable = readableDomain(host);
  return readable
    .split('.')
    .some(
      (label) =>
        /\p{Script=Latin}/u.test(label) &&
        /[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]/u.test(label),
    );
}

export interface LinkContext {
  /** The tenant's own domains and its regular partners: a link imitating them is phishing. */
  protectedDomains: string[];
  /** The brand the sender speaks as (its display name, or a domain imitating the brand's), when one. */
  brand: Brand | null;
  /**
   * The From domain when it proved itself (DMARC pass) and no free mail service's, and the sender
   * poses as no one else (brand is null): its own hosts and its mailing service's trackers are
   * where its links pass through.
   */
  authenticatedSender?: string | null;
}

/** Where a link's query says it goes on to (?url=…, ?q=…, a whole address written in), when it says. */
function onwardOf(href: string): string[] {
  try {
    const url = new URL(href);
    const onward = [...url.searchParams]
      .filter(([key]) => REDIRECT_PARAM.test(key))
      .map(([, value]) => (value.startsWith('//') ? `https:${value}` : value));
    const written = /[?&;=](https?(?::|%3a)(?:\/|%2f){2}[^&#\s]+)/i.exec(`${url.pathname}${url.search}`)?.[1];
    if (written) onward.push(decodeURIComponent(written));
    return onward;
  } catch {
    return [];
  }
}

/** What the links of a message show: each trick once, the strongest instance. */
export function linkEvidence(links: MessageLink[], context: LinkContext): Evidence[] {
  const evidence: Evidence[] = [];
  const add = (name: string, score: number, description: string) =>
    evidence.push({ name, score, description });
  const short = (href: string) => (href.length > 120 ? `${href.slice(0, 117)}…` : href);
  for (const link of links.slice(0, 500)) {
    const href = link.href.trim();
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href)?.[1]?.toLowerCase();
    if (scheme === 'data') {
      add(
        'DATA_LINK',
        3,
        'A link carries a whole page inside itself (a data: link), so no address shows where it came from',
      );
      continue;
    }
    if (scheme === 'javascript' || scheme === 'vbscript') {
      add('SCRIPT_LINK', 1.5, `A link runs code instead of opening a page (${scheme}: link)`);
      continue;
    }
    const host = hostOf(href);
    if (!host) continue;
    const bare = host.replace(/^\[|\]$/g, '');
    const authority = /^https?:\/\/([^/?#]*)/i.exec(href)?.[1] ?? '';
    if (authority.includes('@'))
      add(
        'LINK_USERINFO',
        3,
        `A link hides its real host behind a user name: ${short(href)} goes to ${host}`,
      );
    if (isIP(bare)) add('LINK_TO_IP', 3, `Link to an IP address: ${short(href)}`);
    else if (/^(?:0x[0-9a-f]+|\d{8,10})$/i.test(bare))
      add('LINK_NUMERIC_HOST', 3, `A link writes its host as a number: ${short(href)}`);
    if (SHORTENERS.has(host))
      add('LINK_SHORTENER', 1, `A link hides where it goes behind a URL shortener (${host})`);
    const path = href.replace(/^https?:\/\//i, '').replace(/^[^@/]*@/, '');
    const hosting =
      matchesSuffix(host, FREE_HOSTING) ?? (FREE_HOSTING_PATHS.some((p) => p.test(path)) ? host : null);
    if (hosting)
      add('LINK_FREE_HOSTING', 1.5, `A link leads to a page on a free hosting or forms service (${host})`);
    if (host.split('.').some((l) => l.startsWith('xn--')) && mixedScript(host))
      add(
        'LINK_MIXED_SCRIPT_HOST',
        3,
        `A link's host mixes alphabets to look like another (${readableDomain(host)})`,
      );
    // Where the link's query says it goes on to, when that is another site: a redirect
    // parameter (?url=…, ?q=…), or a whole address written into the query (?https://…). Not on
    // the authenticated sender's own hosts: that is its click tracker (links.newsletter.example/
    // c/1?url=…), which it answers for, and a newsletter links to other sites by nature.
    const onward = onwardOf(href)
      .map(hostOf)
      .filter((next): next is string => Boolean(next));
    const ownHost = Boolean(context.authenticatedSender && sameSite(host, context.authenticatedSender));
    const tracker = ownHost || Boolean(context.authenticatedSender && matchesSuffix(host, ESP_TRACKING));
    const elsewhere = onward.find((next) => !sameSite(next, host));
    if (elsewhere && !ownHost)
      add('LINK_REDIRECT', 1.5, `A link on ${host} passes the reader on to ${elsewhere}`);
    const imitated = lookalikeOf(host, context.protectedDomains);
    // Links to another organisation of the same short name (acme.com beside acme.example) are
    // common and harmless; the sender's domain is judged by that rule, a link is not.
    const sameShortName =
      imitated &&
      registrable(readableDomain(host)).name === registrable(readableDomain(imitated)).name &&
      registrable(readableDomain(imitated)).name.length < 6;
    if (imitated && !sameShortName)
      add('LINK_LOOKALIKE_OWN_DOMAIN', 5, `A link goes to ${host}, which imitates ${imitated}`);
    const brand = brandImitatedBy(host);
    if (brand)
      add('LINK_LOOKALIKE_BRAND', 4, `A link goes to ${host}, which imitates ${brand.brand}'s domains`);
    const named = shownHost(link.text);
    // A redirect whose onward address is the host its text shows leads where it says.
    if (named && !sameSite(named, host) && !onward.some((next) => sameSite(next, named))) {
      const namedBrand = brandOwning(named);
      const sender = context.authenticatedSender;
      if (namedBrand && sender && isBrandDomain(sender, namedBrand)) {
        // The brand itself, authenticated, linking to its own site through its click tracker.
      } else if (namedBrand && !isBrandHost(host, namedBrand)) {
        if (tracker)
          add(
            'LINK_TEXT_BRAND_HOST',
            1,
            `Link text names ${named} (${namedBrand.brand}) but goes through ${host}, the sender's click tracker, which does not say where it leads`,
          );
        else
          add(
            'LINK_TEXT_BRAND_HOST',
            3.5,
            `Link text names ${named} (${namedBrand.brand}) but leads to ${host}`,
          );
      } else if (!tracker) add('LINK_TEXT_OTHER_HOST', 1, `Link text names ${named} but leads to ${host}`);
    }
    // A brand's sign-in button that leads away from the brand.
    const button = link.text.trim().length <= 40 ? link.text : '';
    if (context.brand && !isBrandHost(host, context.brand) && CREDENTIAL_CALL.test(button))
      add(
        'BRAND_CREDENTIAL_LINK',
        2,
        `A "${link.text.trim().slice(0, 40)}" link in ${context.brand.brand}'s name leads to ${host}, not to ${context.brand.brand}`,
      );
    else if (brandNamedIn(button) && CREDENTIAL_CALL.test(button)) {
      const inText = brandNamedIn(button)!;
      if (!isBrandHost(host, inText))
        add(
          'BRAND_CREDENTIAL_LINK',
          2,
          `A "${link.text.trim().slice(0, 40)}" link names ${inText.brand} and leads to ${host}`,
        );
    }
  }
  return evidence;
}

/** The brand whose own host this is (login.microsoftonline.com is Microsoft's). */
export function brandOwning(host: string): Brand | null {
  return BRANDS.find((b) => b.domains.some((d) => host === d || host.endsWith(`.${d}`))) ?? null;
}
