import { domainToUnicode } from 'node:url';

/**
 * Letters of other scripts that render like Latin ones (Cyrillic, Greek, Armenian and a few Latin
 * extensions), folded to the letter they imitate: `acmе.test` with a Cyrillic е is `acme.test` to
 * a reader.
 */
const CONFUSABLES = new Map(
  'аa сc ԁd еe һh іi јj кk ӏl оo рp ԛq ѕs уy ѡw хx үy ԝw αa εe ηn ιi κk νv οo ρp τt υu χx ωw քp օo սu ցg ɑa ɡg ıi ȷj ɩi ʟl ℓl'
    .split(' ')
    .map((pair) => [pair[0]!, pair[1]!] as const),
);

/** Characters attackers swap for look-alikes, folded to what they imitate. */
export function foldHomoglyphs(value: string): string {
  return (
    value
      // Full-width and other compatibility forms to their plain letters, accents dropped.
      .normalize('NFKD')
      // Accents, and invisible characters (zero-width spaces, soft hyphens) that split a name for filters only.
      .replace(/[\p{M}\p{Cf}]/gu, '')
      .toLowerCase()
      .replace(/./gu, (ch) => CONFUSABLES.get(ch) ?? ch)
      .replace(/rn/g, 'm')
      .replace(/vv/g, 'w')
      .replace(/[0]/g, 'o')
      .replace(/[1!|]/g, 'l')
      .replace(/[i]/g, 'l')
      .replace(/5/g, 's')
      .replace(/3/g, 'e')
  );
}

/** Edit distance with transpositions (optimal string alignment). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
      }
    }
  }
  return d[a.length]![b.length]!;
}

/** Lower case, no trailing dot, IDNA A-labels (`xn--…`) shown as the letters a reader sees. */
export function readableDomain(domain: string): string {
  const lower = domain.trim().toLowerCase().replace(/\.+$/, '');
  return lower.includes('xn--') ? domainToUnicode(lower) || lower : lower;
}

/** Second-level labels under which country codes register names (`acme.co.uk`, `acme.com.au`). */
const SECOND_LEVEL = new Set(['co', 'com', 'net', 'org', 'gov', 'edu', 'ac', 'ne', 'or', 'go']);

/**
 * A domain cut where names are registered: `login.acme-test.co.uk` is the name `acme-test` under
 * `co.uk`, below it `login`. A rough public-suffix rule (one label, or a second-level one under a
 * country code), enough to compare a sender's domain with the tenant's.
 */
export function registrable(domain: string): { labels: string[]; name: string; suffix: string } {
  const labels = domain.split('.').filter(Boolean);
  const n = labels.length;
  const twoPart = n >= 3 && labels[n - 1]!.length === 2 && SECOND_LEVEL.has(labels[n - 2]!);
  const suffixLength = twoPart ? 2 : 1;
  return {
    labels,
    name: labels[n - suffixLength - 1] ?? '',
    suffix: labels.slice(n - suffixLength).join('.'),
  };
}

/** A host's site: its registered domain (`login.acme.co.uk` → `acme.co.uk`), to tell one organisation's hosts. */
export function siteOf(host: string): string {
  const { name, suffix } = registrable(readableDomain(host));
  return name ? `${name}.${suffix}` : host;
}

/** Whether `needle` occurs in `haystack` as consecutive items. */
function containsRun(haystack: string[], needle: string[]): boolean {
  for (let i = 0; i + needle.length <= haystack.length; i++) {
    if (needle.every((item, j) => haystack[i + j] === item)) return true;
  }
  return false;
}

/**
 * Whether `candidate` imitates `real` (both readable, `candidate` neither `real` nor under it).
 * Short names (`acme`) are judged by structure only, as a one-letter typo of a four-letter name
 * is often another real name (`acne`): the same name under another suffix, the whole domain
 * inside a longer one, the name as a hyphenated part of the registered name. Names of five
 * letters or more also match a typo away.
 */
export function imitates(candidate: string, real: string): boolean {
  const c = foldHomoglyphs(candidate);
  const r = foldHomoglyphs(real);
  // A homoglyph of the domain, or of one of its subdomains (acmе.test, mail.acmе.test).
  if (c === r || c.endsWith(`.${r}`)) return true;
  const C = registrable(c);
  const R = registrable(r);
  if (!R.name || !C.name) return false;
  // The same name under another suffix: acme.co against acme.com, acme.com against acme.test.
  if (C.name === R.name && C.suffix !== R.suffix) return true;
  // The whole registered domain inside another one: acme.test.evil.example.
  if (containsRun(C.labels, [R.name, ...R.suffix.split('.')])) return true;
  // The name as a hyphenated part of the registered name: acme-test.com, login-acme.net. Only
  // the registered name counts: subdomains such as acme.zendesk.com are how many services
  // legitimately send for a customer.
  const parts = C.name.split('-').filter(Boolean);
  if (R.name.length >= 3 && parts.length > 1) {
    if (parts.includes(R.name)) return true;
    if (R.name.length >= 5 && parts.some((part) => editDistance(part, R.name) <= 1)) return true;
  }
  // A typo of a name of five letters or more, under the same suffix or nearly the same domain.
  return (
    R.name.length >= 5 &&
    editDistance(C.name, R.name) <= 1 &&
    (C.suffix === R.suffix || editDistance(c, r) <= 2)
  );
}

const MAX_REMEMBERED = 20_000;
const remembered = new Map<string, string | null>();

/** Whether `domain` imitates one of `own` without being it or under it; the domain it imitates. */
export function lookalikeOf(domain: string, own: string[]): string | null {
  // Mail links to the same few hosts again and again, for the same tenants: each pair is judged once.
  const key = `${domain}\n${own.join(' ')}`;
  const seen = remembered.get(key);
  if (seen !== undefined) return seen;
  const found = judgeLookalike(domain, own);
  if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
  remembered.set(key, found);
  return found;
}

function judgeLookalike(domain: string, own: string[]): string | null {
  const candidate = readableDomain(domain);
  if (!candidate) return null;
  const owned = own.map((real) => ({ real, readable: readableDomain(real) })).filter((o) => o.readable);
  for (const { readable } of owned) {
    if (candidate === readable || candidate.endsWith(`.${readable}`)) return null;
  }
  for (const { real, readable } of owned) {
    if (imitates(candidate, readable)) return real;
  }
  return null;
}
