import { SHARED_MAIL_DOMAINS } from '@moat/contracts/my-senders';
import { editDistance, foldHomoglyphs, readableDomain, registrable } from './lookalike.ts';

/**
 * The brands attackers pose as most (the phishing reports of APWG, Check Point's Brand Phishing
 * Report and Microsoft's, 2024–2026), with the domains their own mail comes from. A sender naming
 * a brand from a domain that is none of these is the commonest lure there is.
 *
 * `names`: how a reader sees the brand named (display name, subject, logo text), matched as whole
 * words after homoglyphs are folded. `weak`: names that are also ordinary words ("apple",
 * "chase", "teams"): they count only as the heart of a display name ("Apple Support"), never in
 * running text. `domains`: registered domains the brand sends from or links to (their subdomains
 * are the brand's too); the brand's name under any suffix (`amazon.de`, `hsbc.co.uk`) counts as
 * the brand's own, since these brands hold their names under most suffixes. They include the
 * domains a brand sends or tracks its clicks from under another name (`wellsfargoemail.com`,
 * `paypal-communication.com`, `dropbox-mktg.com`), as SpamAssassin's default welcome list and
 * the brands' own mail name them: built like an attacker's domain, they are the brand's.
 */
export interface Brand {
  brand: string;
  names: string[];
  weak?: string[];
  domains: string[];
}

export const BRANDS: Brand[] = [
  {
    brand: 'Microsoft',
    names: [
      'microsoft',
      'office 365',
      'office365',
      'microsoft 365',
      'onedrive',
      'sharepoint',
      'azure',
      'outlook web',
    ],
    weak: ['outlook', 'teams', 'office', 'windows', 'xbox'],
    domains: [
      'microsoft.com',
      'microsoftonline.com',
      'office.com',
      'office365.com',
      'office.net',
      'microsoft365.com',
      'sharepointonline.com',
      'onedrive.com',
      'live.com',
      'outlook.com',
      'azure.com',
      'windows.net',
      'windowsazure.com',
      'xbox.com',
      'skype.com',
      'bing.com',
      'msn.com',
      'microsoftstore.com',
      'microsoftrewards.com',
    ],
  },
  {
    brand: 'Google',
    names: ['google', 'gmail', 'google workspace', 'google drive', 'google docs', 'youtube'],
    domains: [
      'google.com',
      'gmail.com',
      'googlemail.com',
      'youtube.com',
      'withgoogle.com',
      'googleworkspace.com',
    ],
  },
  {
    brand: 'Apple',
    names: ['apple id', 'icloud', 'itunes', 'apple pay'],
    weak: ['apple'],
    domains: ['apple.com', 'icloud.com', 'me.com', 'itunes.com', 'insideapple.com'],
  },
  {
    brand: 'Amazon',
    names: ['amazon', 'amazon prime', 'aws'],
    domains: ['amazon.com', 'amazonses.com', 'amazonaws.com', 'amazon.jobs', 'primevideo.com'],
  },
  {
    brand: 'PayPal',
    names: ['paypal'],
    domains: [
      'paypal.com',
      'paypal.me',
      'xoom.com',
      'venmo.com',
      'paypalcredit.com',
      'paypal-communication.com',
      'paypal-customerfeedback.com',
    ],
  },
  {
    brand: 'DHL',
    names: ['dhl', 'dhl express'],
    domains: ['dhl.com', 'dhl.de', 'dpdhl.com', 'dhl-news.com', 'dhlparcel.nl'],
  },
  { brand: 'FedEx', names: ['fedex'], domains: ['fedex.com'] },
  { brand: 'UPS', names: ['ups my choice'], weak: ['ups'], domains: ['ups.com'] },
  { brand: 'USPS', names: ['usps', 'us postal service'], domains: ['usps.com', 'usps.gov'] },
  { brand: 'Royal Mail', names: ['royal mail'], domains: ['royalmail.com', 'royalmail.co.uk'] },
  { brand: 'DPD', names: ['dpd'], domains: ['dpd.com', 'dpd.co.uk', 'dpd.de'] },
  { brand: 'DocuSign', names: ['docusign'], domains: ['docusign.net', 'docusign.com'] },
  {
    brand: 'Adobe',
    names: ['adobe', 'adobe sign', 'adobe acrobat', 'acrobat sign'],
    domains: ['adobe.com', 'adobesign.com', 'echosign.com', 'adobesystems.com', 'adobespark.com'],
  },
  { brand: 'Dropbox', names: ['dropbox'], domains: ['dropbox.com', 'dropboxmail.com', 'dropbox-mktg.com'] },
  { brand: 'WeTransfer', names: ['wetransfer'], domains: ['wetransfer.com'] },
  { brand: 'Netflix', names: ['netflix'], domains: ['netflix.com'] },
  { brand: 'LinkedIn', names: ['linkedin'], domains: ['linkedin.com', 'licdn.com'] },
  {
    brand: 'Meta',
    names: ['facebook', 'instagram', 'whatsapp', 'meta for business'],
    weak: ['meta'],
    domains: ['facebook.com', 'facebookmail.com', 'instagram.com', 'whatsapp.com', 'meta.com', 'fb.com'],
  },
  { brand: 'Zoom', names: ['zoom video', 'zoom meeting'], weak: ['zoom'], domains: ['zoom.us', 'zoom.com'] },
  { brand: 'Okta', names: ['okta'], domains: ['okta.com', 'oktapreview.com'] },
  { brand: 'Salesforce', names: ['salesforce'], domains: ['salesforce.com', 'force.com'] },
  { brand: 'Slack', names: ['slack'], domains: ['slack.com', 'slackhq.com'] },
  { brand: 'GitHub', names: ['github'], domains: ['github.com'] },
  {
    brand: 'Intuit',
    names: ['intuit', 'quickbooks', 'turbotax'],
    domains: ['intuit.com', 'quickbooks.com', 'turbotax.com'],
  },
  {
    brand: 'Norton',
    names: ['norton', 'norton 360', 'nortonlifelock'],
    domains: ['norton.com', 'nortonlifelock.com', 'gen.com'],
  },
  { brand: 'McAfee', names: ['mcafee'], domains: ['mcafee.com'] },
  { brand: 'Coinbase', names: ['coinbase'], domains: ['coinbase.com'] },
  { brand: 'Binance', names: ['binance'], domains: ['binance.com'] },
  {
    brand: 'Wells Fargo',
    names: ['wells fargo'],
    domains: ['wellsfargo.com', 'wf.com', 'wellsfargoemail.com'],
  },
  {
    brand: 'Chase',
    names: ['jpmorgan chase', 'chase bank', 'chase online'],
    weak: ['chase'],
    domains: ['chase.com', 'jpmorgan.com', 'jpmchase.com'],
  },
  {
    brand: 'Bank of America',
    names: ['bank of america', 'bofa'],
    domains: ['bankofamerica.com', 'bofa.com'],
  },
  { brand: 'Citibank', names: ['citibank'], weak: ['citi'], domains: ['citi.com', 'citibank.com'] },
  { brand: 'HSBC', names: ['hsbc'], domains: ['hsbc.com', 'hsbc.co.uk'] },
  { brand: 'Barclays', names: ['barclays'], domains: ['barclays.com', 'barclays.co.uk'] },
  { brand: 'Santander', names: ['santander'], domains: ['santander.com', 'santander.co.uk'] },
  { brand: 'Deutsche Bank', names: ['deutsche bank'], domains: ['db.com', 'deutsche-bank.de'] },
  { brand: 'ING', names: ['ing bank', 'ing direct'], domains: ['ing.com', 'ing.de', 'ing.nl'] },
  {
    brand: 'American Express',
    names: ['american express', 'amex'],
    domains: ['americanexpress.com', 'aexp.com', 'aexpfeedback.com'],
  },
  { brand: 'Visa', names: ['visa secure'], domains: ['visa.com', 'visadpsmessage.com'] },
  { brand: 'Mastercard', names: ['mastercard'], domains: ['mastercard.com'] },
  { brand: 'IRS', names: ['internal revenue service'], weak: ['irs'], domains: ['irs.gov'] },
  { brand: 'HMRC', names: ['hmrc'], domains: ['hmrc.gov.uk', 'gov.uk'] },
  { brand: 'Booking.com', names: ['booking.com'], domains: ['booking.com'] },
  { brand: 'Airbnb', names: ['airbnb'], domains: ['airbnb.com'] },
  {
    brand: 'Steam',
    names: ['steam community', 'steam support'],
    domains: ['steampowered.com', 'steamcommunity.com'],
  },
];

/** Free mail services: anyone can have an address there, so a brand or an executive never writes from one. */
const FREE_MAIL: ReadonlySet<string> = new Set(SHARED_MAIL_DOMAINS);

/** Whether `domain` is a free mail service's (or under one). */
export function isFreeMail(domain: string): boolean {
  const d = readableDomain(domain);
  const { name, suffix } = registrable(d);
  return FREE_MAIL.has(`${name}.${suffix}`) || /^yahoo\.|^hotmail\.|^outlook\./.test(`${name}.${suffix}`);
}

/** Words that make a display name a brand's voice ("Microsoft Account Team", "PayPal Service"). */
const BRAND_VOICE = new Set(
  // Folded as display names are (foldHomoglyphs turns i into l).

  'account accounts team support security service services billing id alert alerts notification notifications help center centre customer care online mail message messages admin administrator no-reply noreply verify verification store update updates official'
    .split(' ')
    .map((w) => foldHomoglyphs(w)),
);

const escapeRegExp = (word: string) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Text as a reader sees it, for naming: homoglyphs folded (Micr0s0ft), separators as spaces. */
function readable(text: string): string {
  return foldHomoglyphs(text.slice(0, 20_000))
    .replace(/[_\-–—|•·:/\\]+/g, ' ')
    .replace(/\s+/g, ' ');
}

// foldHomoglyphs turns i into l and digits into letters: the names are folded the same way.
const patterns = BRANDS.map((brand) => ({
  brand,
  strong: new RegExp(
    `(?:^|[^a-z0-9])(?:${brand.names.map((n) => escapeRegExp(foldHomoglyphs(n))).join('|')})(?![a-z0-9])`,
  ),
  weak: brand.weak?.length
    ? new RegExp(`^(?:${brand.weak.map((n) => escapeRegExp(foldHomoglyphs(n))).join('|')})$`)
    : null,
}));

/** The brand a text names (a subject, a logo's alt text, running text): strong names only. */
export function brandNamedIn(text: string): Brand | null {
  if (!text) return null;
  const seen = readable(text);
  return patterns.find((p) => p.strong.test(seen))?.brand ?? null;
}

/**
 * The brand a display name speaks as: a strong name anywhere in it ("Microsoft 365 Security"), or
 * a weak one as its heart ("Apple", "Apple Support", "Teams Notification" — not "Jane Apple").
 */
export function brandOfDisplayName(name: string): Brand | null {
  const seen = readable(name).trim();
  if (!seen) return null;
  const strong = brandNamedIn(seen);
  if (strong) return strong;
  const words = seen.split(' ').filter(Boolean);
  for (const { brand, weak } of patterns) {
    if (!weak) continue;
    const rest = words.filter((w) => !weak.test(w));
    if (rest.length === words.length) continue;
    if (rest.every((w) => BRAND_VOICE.has(w))) return brand;
  }
  return null;
}

/** Each brand's own domains and registered names, as sets (isBrandDomain runs per brand per host). */
const OWN = new Map(
  BRANDS.map((brand) => [
    brand,
    { domains: new Set(brand.domains), names: new Set(brand.domains.map((real) => registrable(real).name)) },
  ]),
);

/** Whether `domain` (a sender's or a link's host) is one of the brand's own. */
export function isBrandDomain(domain: string, brand: Brand): boolean {
  const d = readableDomain(domain);
  const own = OWN.get(brand);
  if (!own) return false;
  const labels = d.split('.');
  for (let i = 0; i < labels.length - 1; i++) if (own.domains.has(labels.slice(i).join('.'))) return true;
  // The brand's name under another suffix: amazon.de, hsbc.co.uk.
  const { name } = registrable(d);
  return name.length >= 3 && own.names.has(name) && foldHomoglyphs(name) === name;
}

/**
 * Names of brand domains that are also ordinary words or other people's names (outlook, live,
 * office, citi): a domain built on them is not, by that alone, posing as the brand.
 */
const COMMON_NAMES = new Set(
  'outlook live office windows bing msn me gen force db wf fb citi chase apple meta zoom visa steam slack ing booking mastercard'.split(
    ' ',
  ),
);

/**
 * Words attackers add to a brand's name to make a domain for it: microsoft-login, paypal-secure.
 * Folded as the domain's parts are (foldHomoglyphs turns i into l: "login" is compared as
 * "logln"), so the words with an i match too.
 */
const ATTACK_WORDS: ReadonlySet<string> = new Set(
  'login logon signin sign secure security verify verification account accounts auth support help service services update billing online id mail webmail portal office track tracking delivery parcel customer confirm alert alerts team wallet pay payment recovery unlock center web app cloud docs document files share drive sso mfa 365'
    .split(' ')
    .map((w) => foldHomoglyphs(w)),
);
const isAttackWord = (folded: string) => ATTACK_WORDS.has(folded);
/** "id" folded, the prefix of appleid-verify, paypalidsecure. */
const ID = foldHomoglyphs('id');

/**
 * A one-letter typo of a brand's name: a letter swapped or two letters transposed for names of six
 * letters or more (paypai, rnicrosoft), also one dropped or added from seven (micosoft) — shorter
 * names lose a letter into ordinary words (icloud, cloud).
 */
function typoOf(candidate: string, real: string): boolean {
  if (real.length < 6 || candidate === real || Math.abs(candidate.length - real.length) > 1) return false;
  if (candidate.length !== real.length && real.length < 7) return false;
  return editDistance(candidate, real) === 1;
}

/**
 * The brand a domain imitates without being the brand's: a homoglyph or typo of a brand domain's
 * name (paypa1.com, rnicrosoft.com), the brand's name as a part of the registered name with an
 * attack word (micros0ft-login.example, secure-paypal.net, appleid-verify.com), or the brand's
 * name glued to an attack word (paypalsecure.com). A domain merely containing a brand's letters
 * (appleinsider.com) is not one: no attack word.
 */
export function brandImitatedBy(domain: string): Brand | null {
  const d = readableDomain(domain);
  if (!d) return null;
  const cached = imitations.get(d);
  if (cached !== undefined) return cached;
  const found = imitation(d);
  // Mail links to the same few hosts over and over: each is judged once per process.
  if (imitations.size >= MAX_REMEMBERED) imitations.delete(imitations.keys().next().value as string);
  imitations.set(d, found);
  return found;
}

const MAX_REMEMBERED = 20_000;
const imitations = new Map<string, Brand | null>();

/** Each brand's domains as the checks compare them: folded once, not per message. */
const BRAND_KEYS = BRANDS.map((brand) => ({
  brand,
  names: brand.domains
    .map((real) => registrable(real).name)
    .filter((name) => name.length >= 3)
    .map((name) => ({ name: foldHomoglyphs(name), common: COMMON_NAMES.has(name) })),
  main: (() => {
    const main = registrable(brand.domains[0]!).name;
    return main.length >= 5 && !COMMON_NAMES.has(main) ? foldHomoglyphs(main) : null;
  })(),
  dotted: brand.domains.map((real) => real.split('.').map((p) => foldHomoglyphs(p))),
}));

function imitation(d: string): Brand | null {
  const { name, labels } = registrable(d);
  if (!name) return null;
  const folded = foldHomoglyphs(name);
  const parts = folded.split('-').filter(Boolean);
  const foldedLabels = labels.map((label) => foldHomoglyphs(label));
  const below = foldedLabels.slice(0, Math.max(0, labels.indexOf(name)));
  for (const { brand, names, main, dotted } of BRAND_KEYS) {
    if (isBrandDomain(d, brand)) continue;
    for (const { name: realName, common } of names) {
      // The name as one part, with an attack word beside it: microsoft-login, dhl-express-track,
      // chase-alerts-secure (a name that is also a word needs the attack word, as a short one does).
      if (parts.length > 1 && parts.some((p) => p === realName || (!common && typoOf(p, realName)))) {
        const others = parts.filter((p) => p !== realName && !typoOf(p, realName));
        if ((realName.length >= 5 && !common) || others.some(isAttackWord)) return brand;
      }
      if (common) continue;
      // A homoglyph or typo of the whole name: paypa1, rnicrosoft, arnazon.
      if (folded === realName && name !== realName) return brand;
      if (typoOf(folded, realName)) return brand;
      // Glued to an attack word: paypalsecure, appleidverify, microsoftonline365.
      if (realName.length >= 5 && folded !== realName) {
        const glued = folded.startsWith(realName)
          ? folded.slice(realName.length)
          : folded.endsWith(realName)
            ? folded.slice(0, -realName.length)
            : null;
        if (
          glued &&
          isAttackWord(glued.length > ID.length && glued.startsWith(ID) ? glued.slice(ID.length) : glued)
        )
          return brand;
      }
    }
    // The brand's name as a subdomain of someone else's: docusign.account-verify.example,
    // paypal.com.secure-login.example.
    if (main && below.includes(main)) return brand;
    for (const realParts of dotted) {
      for (let i = 0; i + realParts.length < foldedLabels.length; i++) {
        if (realParts.every((p, j) => foldedLabels[i + j] === p)) return brand;
      }
    }
  }
  return null;
}
