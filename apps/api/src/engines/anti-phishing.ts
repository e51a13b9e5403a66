import { attachmentLures, type LureResult } from './lures/index.ts';
import {
  brandImitatedBy,
  brandNamedIn,
  brandOfDisplayName,
  isBrandDomain,
  isFreeMail,
} from './phishing/brands.ts';
import { type Evidence, PHISHING_POINTS, SUSPICIOUS_POINTS, strongestPerRule } from './phishing/evidence.ts';
import {
  editDistance,
  foldHomoglyphs,
  lookalikeOf,
  readableDomain,
  registrable,
} from './phishing/lookalike.ts';
import { hostOf, isBrandHost, linkEvidence, sameSite } from './phishing/urls.ts';
import { header, messageFacts } from './spam/message-facts.ts';
import type { Engine, EngineInput, Finding } from './types.ts';

export { editDistance, lookalikeOf };

/** Words of a message that asks for credentials or payment: a lure's sentence, not a button. */
const CREDENTIAL_WORDS =
  /\b(?:verify (?:your )?(?:account|identity|email|mailbox)|confirm (?:your )?(?:account|identity|details|password)|password (?:will )?expir|(?:account|mailbox) (?:has been |will be |is )?(?:suspended|locked|disabled|deactivated|closed|on hold)|unusual (?:sign-?in|activity|login)|mailbox (?:is )?(?:full|over (?:its )?quota)|storage (?:is )?full|update (?:your )?(?:payment|billing) (?:details|information|method)|payment (?:was )?(?:declined|failed)|keep (?:your )?(?:current )?password|re-?validate|shared (?:a )?(?:document|file) with you|voicemail|pending (?:delivery|messages?)|delivery (?:attempt )?failed|customs fee|(?:subscription|membership|plan) (?:has )?(?:expired|expires|will expire|could not be renewed)|(?:could not|couldn't|unable to) (?:be )?(?:deliver|process|verify|renew|charge)|(?:messages?|emails?) (?:are |were |have been )?(?:held|on hold|quarantined|blocked|undelivered)|(?:parcel|package|shipment) (?:is |has been )?(?:on hold|held|waiting|returned)|(?:confirm|update) (?:your )?(?:delivery|shipping) (?:address|details)|(?:new|unrecognized|suspicious) (?:sign-?in|login|device)|restore (?:full )?access|(?:limited|restricted) (?:your )?account|account (?:limitation|restriction)|sign in to (?:view|review|confirm|restore|keep|release|avoid))\b/i;

/** Words of a request to move money: business email compromise asks for these, usually with no link. */
const PAYMENT_WORDS =
  /\b(?:wire (?:transfer|payment)|(?:bank )?account (?:has |have )?(?:changed|been changed|been updated)|remittance details|bank (?:details|account details|information)|new (?:bank )?account (?:details|number)|change (?:of|in) (?:bank|banking|payment)|updated? (?:bank|banking|remittance) (?:details|information)|gift ?cards?|iban|swift code|payroll (?:details|change|update)|direct deposit)\b/i;

const REPLY_PREFIX = /^\s*(?:re|aw|sv|vs|ref|rif|antw|wg|fw|fwd|tr)\s*:/i;

/** A person's name, compared as a reader would: homoglyphs folded, order and punctuation ignored. */
function nameKey(name: string): string[] {
  return foldHomoglyphs(name)
    .replace(/["'`.,()]/g, ' ')
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .sort();
}

/** Whether a display name is a VIP's name, or close enough to pass for it (Carla Mendez, C. Mendes, Mendes Carla). */
function namesVip(display: string, vip: string): boolean {
  const a = nameKey(display);
  const b = nameKey(vip);
  if (b.length === 0 || b.join(' ').length < 5) return false;
  if (a.join(' ') === b.join(' ')) return true;
  // Every word of the VIP's name there (an added title or company: "Carla Mendes CEO").
  if (b.length >= 2 && b.every((w) => a.includes(w)) && a.length <= b.length + 2) return true;
  // An initial for the first name: "C Mendes".
  if (b.length === 2 && a.length === 2) {
    const [first, last] = nameKey(vip.split(/\s+/)[0] ?? '').concat(
      nameKey(vip.split(/\s+/).slice(1).join(' ')),
    );
    if (first && last && a.includes(last) && a.some((w) => w.length === 1 && w === first[0])) return true;
  }
  // A typo of the whole name.
  const joined = (words: string[]) => words.join('');
  return joined(b).length >= 8 && editDistance(joined(a), joined(b)) <= 1;
}

/** The part of a text a reader sees first: where a logo's words and a lure's headline are. */
function opening(input: EngineInput): string {
  const alts = [
    ...(input.parsed.html
      ?.slice(0, 100_000)
      .matchAll(/<img\b[^>]{0,500}?\balt\s*=\s*["']([^"']{2,80})["']/gi) ?? []),
  ]
    .slice(0, 5)
    .map((m) => m[1]);
  return [...alts, input.parsed.text.slice(0, 400)].join(' \n ');
}

/** Everything the engine concludes about one message: its evidence, strongest first. */
export function phishingEvidence(
  input: EngineInput,
  options: { blocklist?: string[]; lures?: LureResult } = {},
): Evidence[] {
  const { parsed, auth, tenant } = input;
  // The links of its attachments (QR codes, PDFs, HTML pages) are judged like its own.
  const links = options.lures?.links.length ? [...input.links, ...options.lures.links] : input.links;
  const evidence: Evidence[] = [...(options.lures?.evidence ?? [])];
  const add = (name: string, score: number, description: string) =>
    evidence.push({ name, score, description });
  const fromDomain = readableDomain(parsed.fromAddress.split('@')[1] ?? '');
  const internal = tenant.domains.some((d) => fromDomain === d || fromDomain.endsWith(`.${d}`));
  const partners = tenant.partners ?? [];
  const fromPartner = partners.some((d) => fromDomain === d || fromDomain.endsWith(`.${d}`));
  const facts = messageFacts(input.raw);

  if (auth.dmarc === 'fail') add('DMARC_FAIL', PHISHING_POINTS, `DMARC failed for ${fromDomain}`);

  // The tenant's own domains, and those of the partners it writes with.
  if (fromDomain) {
    const own = lookalikeOf(fromDomain, tenant.domains);
    if (own)
      add('LOOKALIKE_OWN_DOMAIN', PHISHING_POINTS, `Lookalike sender domain ${fromDomain} imitates ${own}`);
    else if (!fromPartner && !internal) {
      const partner = lookalikeOf(fromDomain, partners);
      if (partner)
        add(
          'LOOKALIKE_PARTNER_DOMAIN',
          PHISHING_POINTS,
          `Lookalike sender domain ${fromDomain} imitates ${partner}, a domain this organisation writes with`,
        );
    }
  }

  // The tenant's people and VIPs, named from outside.
  const name = parsed.fromName.trim();
  if (!internal && name.length >= 3) {
    const address = parsed.fromAddress.toLowerCase();
    const vip = (tenant.vips ?? []).find(
      (v) => namesVip(name, v.name) && !v.emails.some((e) => e.toLowerCase() === address),
    );
    const person = tenant.people.find(
      (p) => p.name.trim().length >= 3 && p.name.trim().toLowerCase() === name.toLowerCase(),
    );
    if (vip)
      add(
        'VIP_IMPERSONATION',
        PHISHING_POINTS,
        `Display name "${name}" poses as ${vip.name} (a protected person) from ${address}`,
      );
    else if (person)
      add(
        'DISPLAY_NAME_COLLEAGUE',
        PHISHING_POINTS,
        `Display name "${name}" impersonates ${person.email} from outside`,
      );
  }
  // A display name naming the tenant's organisation or a partner, from a domain that is neither:
  // "Acme IT Support" <it@help-desk.example>, "Northwind Supplies - Accounts" <ar@northwind-trading.example>.
  if (!internal && !fromPartner && name) {
    const shown = ` ${nameKey(name.replace(/[-_]/g, ' ')).join(' ')} `;
    const spoken = ` ${foldHomoglyphs(name)
      .replace(/[^a-z0-9]+/g, ' ')
      .trim()} `;
    const named = [
      ...tenant.domains.map((d) => ({ d, own: true })),
      ...partners.map((d) => ({ d, own: false })),
    ].find(({ d }) => {
      const words = registrable(readableDomain(d)).name.split('-').filter(Boolean);
      if (words.join('').length < 4) return false;
      const phrase = foldHomoglyphs(words.join(' '));
      return spoken.includes(` ${phrase} `) || (words.length === 1 && shown.includes(` ${phrase} `));
    });
    if (named)
      add(
        named.own ? 'OWN_NAME_FROM_OUTSIDE' : 'PARTNER_NAME_FROM_ELSEWHERE',
        3,
        named.own
          ? `The display name "${name}" speaks for this organisation (${named.d}), but the mail is from ${fromDomain}`
          : `The display name "${name}" speaks for ${named.d}, a domain this organisation writes with, but the mail is from ${fromDomain}`,
      );
  }
  // A display name that shows an address: "it-support@acme.example" <x@evil.example>.
  const shownAddress = /[\w.+-]+@([\w-]+(?:\.[\w-]+)+)/.exec(name)?.[1]?.toLowerCase();
  if (shownAddress && fromDomain && !sameSite(shownAddress, fromDomain))
    add(
      'DISPLAY_NAME_OTHER_ADDRESS',
      2,
      `The display name shows an address at ${shownAddress}, but the mail is from ${fromDomain}`,
    );

  // Brands.
  const displayBrand = brandOfDisplayName(name);
  const senderIsBrand = (b: NonNullable<typeof displayBrand>) =>
    Boolean(fromDomain) && isBrandDomain(fromDomain, b) && !isFreeMail(fromDomain);
  if (displayBrand && !senderIsBrand(displayBrand))
    add(
      'BRAND_DISPLAY_NAME',
      4,
      `The sender calls itself "${name}" (${displayBrand.brand}), but writes from ${fromDomain || 'no domain'}, which is not ${displayBrand.brand}'s`,
    );
  const imitated = fromDomain ? brandImitatedBy(fromDomain) : null;
  if (imitated)
    add(
      'BRAND_LOOKALIKE_SENDER',
      5,
      `The sender's domain ${fromDomain} imitates ${imitated.brand}'s domains`,
    );
  // A brand named in the text of mail from a sender that proved its own domain and speaks for no
  // one else (a newsletter, a mailing list, the tenant's own or a partner's mail: "now on Amazon",
  // "the new Teams") is a mention, not a claim to be the brand.
  const authenticated = auth.dmarc === 'pass' && Boolean(fromDomain) && !isFreeMail(fromDomain);
  const poses = Boolean((displayBrand && !senderIsBrand(displayBrand)) || imitated);
  const listMail = Boolean(header(facts, 'list-unsubscribe') || header(facts, 'list-id'));
  const mentionOnly = authenticated && !poses && (internal || fromPartner || listMail);
  const subjectBrand = mentionOnly ? null : brandNamedIn(parsed.subject);
  if (subjectBrand && !senderIsBrand(subjectBrand) && subjectBrand !== displayBrand)
    add(
      'BRAND_IN_SUBJECT',
      1,
      `The subject names ${subjectBrand.brand}, but the sender is not ${subjectBrand.brand}`,
    );
  const logoBrand = mentionOnly ? null : brandNamedIn(opening(input));
  if (logoBrand && !senderIsBrand(logoBrand) && logoBrand !== displayBrand && logoBrand !== subjectBrand)
    add(
      'BRAND_IN_BODY',
      1,
      `The message opens in ${logoBrand.brand}'s name, but the sender is not ${logoBrand.brand}`,
    );
  const brand = [displayBrand, imitated, subjectBrand, logoBrand].find((b) => b && !senderIsBrand(b)) ?? null;
  const lureText = `${parsed.subject}\n${parsed.text.slice(0, 20_000)}`;
  if (brand && links.length > 0 && CREDENTIAL_WORDS.test(lureText))
    add(
      'BRAND_CREDENTIAL_LURE',
      1.5,
      `In ${brand.brand}'s name, it asks the reader to act on an account ("${CREDENTIAL_WORDS.exec(lureText)![0]}")`,
    );

  // Replies that go somewhere else, and strangers in a conversation.
  const replyTo = /[\w.+-]+@([\w-]+(?:\.[\w-]+)+)/.exec(header(facts, 'reply-to'))?.[1]?.toLowerCase();
  if (replyTo && fromDomain && !sameSite(replyTo, fromDomain)) {
    if (isFreeMail(replyTo) && !isFreeMail(fromDomain))
      add(
        'REPLY_TO_FREE_MAIL',
        2.5,
        `Replies go to a free mail address at ${replyTo}, not to the sender's ${fromDomain}`,
      );
    else if (brand || internal)
      add('REPLY_TO_ELSEWHERE', 1.5, `Replies go to ${replyTo}, not to the sender's ${fromDomain}`);
  }
  const isReply =
    REPLY_PREFIX.test(parsed.subject) || Boolean(header(facts, 'in-reply-to') || header(facts, 'references'));
  const history = input.senderHistory;
  if (isReply && history && history.address === 0 && history.domain === 0 && !internal && !fromPartner)
    add(
      'FIRST_TIME_SENDER_REPLY',
      2,
      `A reply in a conversation from ${parsed.fromAddress}, who has never written to this organisation before`,
    );
  const diverted = evidence.some((e) => e.name === 'REPLY_TO_FREE_MAIL');
  if (!internal && PAYMENT_WORDS.test(lureText) && (isReply || diverted || isFreeMail(fromDomain)))
    add(
      'PAYMENT_REQUEST',
      1.5,
      `It asks about moving money ("${PAYMENT_WORDS.exec(lureText)![0]}") from ${isFreeMail(fromDomain) ? 'a free mail address' : 'a new correspondent'}`,
    );
  const speaksAs = displayBrand && !senderIsBrand(displayBrand) ? displayBrand : imitated;
  if (isFreeMail(fromDomain) && speaksAs)
    add(
      'BRAND_FROM_FREE_MAIL',
      2,
      `${speaksAs.brand} does not write from a free mail address (${fromDomain})`,
    );

  // A sender speaking as a brand whose links all lead away from the brand.
  const hosts = links.map((l) => hostOf(l.href)).filter((h): h is string => Boolean(h));
  if (speaksAs && hosts.length > 0 && !hosts.some((h) => isBrandHost(h, speaksAs)))
    add(
      'BRAND_LINKS_ELSEWHERE',
      1.5,
      `None of the links of this message in ${speaksAs.brand}'s name leads to ${speaksAs.brand}`,
    );

  // Links.
  const lookalike = evidence.some((e) => e.name.startsWith('LOOKALIKE_'));
  evidence.push(
    ...linkEvidence(links, {
      protectedDomains: [...tenant.domains, ...partners],
      brand: speaksAs,
      authenticatedSender: authenticated && !speaksAs && !lookalike ? fromDomain : null,
    }),
  );
  const blocklist = options.blocklist ?? [];
  for (const link of links) {
    const host = hostOf(link.href);
    if (!host) continue;
    const href = link.href.toLowerCase();
    const listed = blocklist.find((entry) =>
      entry.includes('/') ? href.startsWith(entry) : host === entry || host.endsWith(`.${entry}`),
    );
    if (listed) add('LINK_BLOCKLISTED', PHISHING_POINTS, `Link to a blocklisted address: ${listed}`);
  }
  return strongestPerRule(evidence);
}

/** A message's evidence added up, and its verdict on the phishing scale. */
export function phishingVerdict(evidence: Evidence[]): { points: number; verdict: Finding['verdict'] } {
  const points = Math.round(evidence.reduce((sum, e) => sum + e.score, 0) * 10) / 10;
  const verdict =
    points >= PHISHING_POINTS ? 'phishing' : points >= SUSPICIOUS_POINTS ? 'suspicious' : 'clean';
  return { points, verdict };
}

/**
 * Anti-phishing: evidence of impersonation (brands, the tenant's people and VIPs, lookalikes of its
 * domains and partners'), of lures (credential and payment requests, replies diverted; QR codes,
 * HTML and SVG pages and locked archives among its attachments: lures/) and of links that hide
 * where they go, each with its points; from 6 points the message is phishing, from 3
 * suspicious. Every piece of evidence is a finding of its own with its points, so the message
 * trace, the event and the banner say in words what was seen.
 */
export function createAntiPhishing(options: { urlBlocklist?: Iterable<string> } = {}): Engine {
  const blocklist = [...(options.urlBlocklist ?? [])].map((u) => u.trim().toLowerCase()).filter(Boolean);
  return {
    name: 'anti_phishing',
    tool: 'ap_avanan',
    version: '2.0.0',
    status: 'on',
    failClosed: true,
    async scan(input) {
      const lures = await attachmentLures(input.parsed);
      const evidence = phishingEvidence(input, { blocklist, lures });
      const { verdict } = phishingVerdict(evidence);
      if (verdict === 'clean') return [];
      return evidence.map((e) => ({
        engine: 'anti_phishing',
        verdict,
        reason: e.description,
        points: e.score,
        rule: e.name,
      }));
    },
  };
}
