import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { Verdict } from '@moat/contracts/quarantine';
import type { Finding } from '../../engines/types.ts';
import type { ExceptionMatch, SenderListName } from './gateway-policy.repo.ts';

export const GATEWAY_ACTIONS = [
  'deliver',
  'deliver_banner',
  'strip',
  'quarantine',
  'quarantine_silent',
] as const;
export type GatewayAction = (typeof GATEWAY_ACTIONS)[number];

/**
 * What the gateway does with a verdict when the tenant has not said otherwise: known malware and
 * phishing are held and the recipient told; spam is delivered with a warning; a dangerous
 * attachment or a suspicious link is stripped (or, with nothing to strip, warned about).
 */
export const DEFAULT_GATEWAY_POLICY: Record<Verdict, GatewayAction> = {
  malware: 'quarantine',
  phishing: 'quarantine',
  spam: 'deliver_banner',
  suspicious: 'strip',
};

/** The action for a verdict given the tenant's stored actions (`actionsOf`). */
export function gatewayActionFrom(stored: Partial<Record<Verdict, string>>, verdict: Verdict): GatewayAction {
  const action = (stored[verdict] as GatewayAction | undefined) ?? DEFAULT_GATEWAY_POLICY[verdict];
  // Known malware never reaches a mailbox, whatever is stored.
  if (verdict === 'malware' && (action === 'deliver' || action === 'deliver_banner')) return 'quarantine';
  return action;
}

/** The list values that can match a sender: its address, its domain and each parent domain. */
export function senderKeys(sender: string): string[] {
  const address = sender.toLowerCase();
  const domain = address.split('@')[1] ?? '';
  if (domain === '') return address ? [address] : [];
  const labels = domain.split('.');
  return [address, ...labels.map((_, i) => labels.slice(i).join('.')).filter((d) => d !== '')];
}

/** Which list the sender is on, among `entries` (its address first, then its domain and parents). */
export function senderListFrom(
  entries: Array<{ list: SenderListName; value: string }>,
  sender: string,
): SenderListName | null {
  const keys = new Set(senderKeys(sender));
  const on = (list: SenderListName) => entries.some((e) => e.list === list && keys.has(e.value));
  // A block entry wins over an allow entry that matches as well.
  if (on('block')) return 'block';
  if (on('allow')) return 'allow';
  return null;
}

/** Links read per message for URL exceptions, and path levels per link. */
const MAX_LINKS = 200;
const MAX_PATH_LEVELS = 8;

/**
 * The values a URL exception can have to match this link: the link itself (normalised as the
 * console stores entries: no fragment, no user info), and the link at each level of its path, so
 * an entry `https://a.example/login` matches `https://a.example/login/step?x=1` too.
 */
export function urlKeys(href: string): string[] {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return [];
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return [];
  url.hash = '';
  url.username = '';
  url.password = '';
  const keys = new Set([url.href]);
  const segments = url.pathname.split('/').filter((p) => p !== '');
  for (let i = 0; i <= Math.min(segments.length, MAX_PATH_LEVELS); i++) {
    const path = `/${segments.slice(0, i).join('/')}`;
    keys.add(`${url.origin}${path}`);
    if (i > 0) keys.add(`${url.origin}${path}/`);
  }
  return [...keys];
}

/** The URL keys of a message's links (bounded). */
export function linkKeys(links: Array<{ href: string }>): string[] {
  return [...new Set(links.slice(0, MAX_LINKS).flatMap((l) => urlKeys(l.href)))];
}

/** Whether an IP-range entry (CIDR, as the console stores it) holds this client address. */
export function ipInRange(ip: string, cidr: string): boolean {
  const client = ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');
  const [network = '', bits] = cidr.split('/');
  const type = isIPv4(network) ? 'ipv4' : isIPv6(network) ? 'ipv6' : null;
  if (!type || (type === 'ipv4' ? !isIPv4(client) : !isIPv6(client))) return false;
  const prefix = bits === undefined ? (type === 'ipv4' ? 32 : 128) : Number(bits);
  try {
    const list = new BlockList();
    list.addSubnet(network, prefix, type);
    return list.check(client, type);
  } catch {
    return false;
  }
}

/** An entry counts until its expiry; from then on it counts for nothing. */
export const liveAt = (entry: Pick<ExceptionMatch, 'expiresAt'>, now: Date) =>
  entry.expiresAt === null || entry.expiresAt.getTime() > now.getTime();

/** What a message offers to be matched: both senders, the client address, its links and attachments. */
export interface ExceptionSubject {
  fromSender: string;
  envelopeSender: string;
  clientIp: string;
  /** From linkKeys. */
  urls: string[];
  /** Attachment SHA-256, lower-case hex. */
  hashes: string[];
  /** The From domain proved itself: DMARC pass (SPF or DKIM aligned with it). */
  authenticated: boolean;
  now: Date;
}

/**
 * The entry that decides a message, if any. A live block entry of any kind wins (an address or
 * domain on either sender, the client in an IP range, a link, an attachment). Otherwise a live
 * allow entry counts, and only when the sender proved its domain: anyone can write an allowed
 * address into From, so an unauthenticated message gets nothing from an allow entry.
 */
export function decidingException(
  entries: ExceptionMatch[],
  subject: ExceptionSubject,
): { list: SenderListName; entry: ExceptionMatch } | null {
  const fromKeys = new Set(senderKeys(subject.fromSender));
  const envelopeKeys = new Set(subject.envelopeSender ? senderKeys(subject.envelopeSender) : []);
  const urls = new Set(subject.urls);
  const hashes = new Set(subject.hashes);
  const matches = (e: ExceptionMatch, senders: Set<string>[]) => {
    switch (e.kind) {
      case 'sender':
      case 'domain':
        return senders.some((keys) => keys.has(e.value));
      case 'ip_range':
        return subject.clientIp !== '' && ipInRange(subject.clientIp, e.value);
      case 'url':
        return urls.has(e.value);
      case 'sha256':
        return hashes.has(e.value);
      default:
        return false;
    }
  };
  const live = entries.filter((e) => liveAt(e, subject.now));
  // Addresses before domains, then the other kinds: the most specific entry is the one named.
  const order = ['sender', 'domain', 'ip_range', 'url', 'sha256'];
  live.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  const block = live.find((e) => e.list === 'block' && matches(e, [fromKeys, envelopeKeys]));
  if (block) return { list: 'block', entry: block };
  if (!subject.authenticated) return null;
  // Only a sender or domain allow entry decides a message: an allowed link, file or IP range says
  // nothing of the rest of the message (an attacker adds one allowed link beside their own).
  const allow = live.find(
    (e) => e.list === 'allow' && (e.kind === 'sender' || e.kind === 'domain') && matches(e, [fromKeys]),
  );
  return allow ? { list: 'allow', entry: allow } : null;
}

/** The words of the trace and Mail Explorer for the entry that decided (SPEC §2.4 Exceptions). */
export function exceptionReason(list: SenderListName, entry: ExceptionMatch): string {
  const by = entry.createdBy || 'system';
  const comment = entry.comment ? `: ${entry.comment}` : '';
  const kind = entry.kind.replace('_', ' ');
  return `${list === 'block' ? 'Blocked' : 'Allowed'} by exception ${kind} ${entry.value} (added by ${by}${comment})`;
}

/**
 * The engines an allow entry of a page excuses. `all` (and Anomaly, which looks at the whole
 * message) excuses every judgement call; known malware is held whatever the entry (below).
 */
const EXCUSED_ENGINES: Record<string, readonly string[] | 'all'> = {
  all: 'all',
  anomaly: 'all',
  anti_phishing: ['anti_phishing'],
  click_time: ['anti_phishing'],
  url_reputation: ['anti_phishing'],
  anti_spam: ['anti_spam'],
  anti_malware: ['anti_malware'],
  dlp: [],
};

/** The findings that still count under an allow entry: known malware always does. */
export function findingsUnderAllow(findings: Finding[], scope: string): Finding[] {
  const excused = EXCUSED_ENGINES[scope] ?? 'all';
  return findings.filter(
    (f) => f.verdict === 'malware' || (excused !== 'all' && !excused.includes(f.engine)),
  );
}

/** An entry of a person's own allow or block list (issue 12, SPEC §6): an address or a domain. */
export interface PersonalEntry {
  id: string;
  list: SenderListName;
  kind: string;
  value: string;
}

/**
 * The person's own entry that decides their copy of a message, if any. A block entry on either
 * sender (its address, its domain or a parent domain) wins; otherwise an allow entry on the From
 * sender, and only when it proved its domain (DMARC pass), as for the organisation's allow
 * entries. The most specific entry is the one named: the address, then the domain, then parents.
 */
export function decidingPersonalEntry(
  entries: PersonalEntry[],
  subject: Pick<ExceptionSubject, 'fromSender' | 'envelopeSender' | 'authenticated'>,
): { list: SenderListName; entry: PersonalEntry } | null {
  const first = (list: SenderListName, keys: string[]) => {
    for (const key of keys) {
      const entry = entries.find((e) => e.list === list && e.value === key);
      if (entry) return entry;
    }
    return undefined;
  };
  const fromKeys = senderKeys(subject.fromSender);
  const envelopeKeys = subject.envelopeSender ? senderKeys(subject.envelopeSender) : [];
  const block = first('block', fromKeys) ?? first('block', envelopeKeys);
  if (block) return { list: 'block', entry: block };
  if (!subject.authenticated) return null;
  const allow = first('allow', fromKeys);
  return allow ? { list: 'allow', entry: allow } : null;
}

/** The words of the trace and Mail Explorer for a person's own entry that decided their copy. */
export function personalReason(list: SenderListName, entry: PersonalEntry, recipient: string): string {
  return `${list === 'block' ? 'Blocked' : 'Allowed'} by ${recipient}'s own sender list: ${entry.value}`;
}

/**
 * The findings that still count under a person's own allow entry: it excuses only the anti-spam
 * engine's. Known malware and phishing always count, whichever engine found them: a person can
 * spare themselves spam filtering, not the organisation's protection.
 */
export function findingsUnderPersonalAllow(findings: Finding[]): Finding[] {
  const counted = new Set(findingsUnderAllow(findings, 'anti_spam'));
  return findings.filter((f) => counted.has(f) || f.verdict === 'phishing');
}

/** An exception to the action per verdict (the Policy screen's overrides, `policy_overrides`). */
export interface StoredOverride {
  match: string;
  value: string;
  verdict: string;
  action: string;
}

/**
 * The action for `recipient` given the tenant's actions and overrides: an override for the
 * recipient's own address wins over one for a group it is in, which wins over one for its domain;
 * without one, the tenant's action for the verdict. Malware is never delivered, whatever is stored.
 */
export function recipientActionFrom(
  stored: Partial<Record<Verdict, string>>,
  overrides: StoredOverride[],
  verdict: Verdict,
  recipient: string,
): GatewayAction {
  const address = recipient.toLowerCase();
  const domain = address.split('@')[1] ?? '';
  const forVerdict = overrides.filter((o) => o.verdict === verdict);
  const found =
    forVerdict.find((o) => o.match === 'recipient' && o.value === address) ??
    forVerdict.find((o) => o.match === 'group' && o.value.split(',').includes(address)) ??
    forVerdict.find((o) => o.match === 'domain' && o.value === domain);
  return gatewayActionFrom(found ? { ...stored, [verdict]: found.action } : stored, verdict);
}
