import dns from 'node:dns';
import net from 'node:net';
import { type Clock, systemClock } from '../lib/clock.ts';
import { cachingResolver, type DnsResolver } from '../mail/gateway/dns-cache.ts';
import { registrable } from './phishing/lookalike.ts';
import type { Engine, EngineInput, Finding } from './types.ts';

/**
 * DNS blocklists, as every real gateway asks them: the SMTP client's address on DNSBL zones
 * (`DNSBL_ZONES`: `7.2.0.192.zen.example`), the sender's domains and the hosts of the message's
 * links on URIBL/DBL zones (`URIBL_ZONES`: `evil.example.dbl.example`, an IP-literal link as a
 * reversed address). A name is listed when its A record is a 127.x address; the TXT record, when
 * it comes in time, says why.
 *
 * A listing is a verdict finding, not points on the spam score: the zone is a third party's
 * judgement that the admin chose to trust, kept apart from the scoring engines (engines/spam/
 * combine.ts weighs those by what each knew about the message's words and rules, which a list of
 * addresses is not). So a client on a DNSBL is spam, a link or sender domain on a URIBL is spam
 * or, on a zone configured `=phishing`, phishing; a zone configured `=suspicious` only marks the
 * message suspicious (a list the admin trusts less).
 *
 * DNS never stalls mail: every lookup has its own time box, the whole message a budget; a lookup
 * that did not answer adds no finding (it is logged and counted), and a zone that timed out or
 * refused rests a while so the next messages do not wait for it too. Answers, listed or not, are
 * reused for five minutes, and identical lookups in flight are shared.
 */

export const BLOCKLIST_VERDICTS = ['spam', 'phishing', 'suspicious'] as const;
export type BlocklistVerdict = (typeof BLOCKLIST_VERDICTS)[number];

/** A configured zone and the verdict its listings give. */
export interface BlocklistZone {
  zone: string;
  verdict: BlocklistVerdict;
}

const ZONE_NAME = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * `zen.example, dbl.example=phishing` → each zone with its verdict (default spam). Throws an
 * Error saying which entry is wrong and what is allowed.
 */
export function parseBlocklistZones(value: string): BlocklistZone[] {
  const zones: BlocklistZone[] = [];
  for (const entry of value.split(',').map((v) => v.trim().toLowerCase())) {
    if (!entry) continue;
    const [zone = '', verdict = 'spam', ...rest] = entry.split('=').map((v) => v.trim());
    const name = zone.replace(/\.$/, '');
    if (rest.length > 0 || !ZONE_NAME.test(name) || name.length > 200) {
      throw new Error(`must be a comma-separated list of DNS zones such as zen.example (bad: "${entry}")`);
    }
    if (!(BLOCKLIST_VERDICTS as readonly string[]).includes(verdict)) {
      throw new Error(
        `must give a zone the verdict =spam, =phishing or =suspicious, or none (bad: "${entry}")`,
      );
    }
    if (!zones.some((z) => z.zone === name)) zones.push({ zone: name, verdict: verdict as BlocklistVerdict });
  }
  return zones;
}

/** Time boxes and bounds (tests shorten the time boxes). */
export const DNSBL_LIMITS = {
  /** One lookup's answer, at most. */
  lookupMs: 1_500,
  /** Everything one message asks, TXT reasons included. */
  budgetMs: 2_000,
  /** How long an answer (listed or not) is reused. */
  cacheMs: 5 * 60_000,
  cacheEntries: 20_000,
  /** Names of links and senders asked per message (registrable domains first). */
  names: 20,
  /** How long a zone that timed out, refused or answered nonsense is left alone. */
  restMs: 30_000,
  /** The longest TXT reason kept in a finding. */
  reasonChars: 160,
  /**
   * Everything a click waits for (click-time protection asks the URI zones about the link's host
   * when it is clicked): a click is answered at once, so an unanswered list is no evidence then.
   */
  clickBudgetMs: 400,
} as const;

export interface DnsblOptions {
  clientZones: BlocklistZone[];
  uriZones: BlocklistZone[];
  /** DNS_SERVERS (`127.0.0.1:5353` with a port); empty: the system's resolver configuration. */
  servers?: string[];
  /** The resolver asked before the cache (tests count its questions); default: c-ares on `servers`. */
  resolver?: DnsResolver;
  clock?: Clock;
  log?: { warn(details: object, message: string): void };
  limits?: Partial<Record<'lookupMs' | 'budgetMs' | 'restMs' | 'clickBudgetMs', number>>;
}

/** What the engine did since it started: for the logs and tests. */
export interface DnsblCounts {
  /** Questions asked (each zone and name; answered from the cache or not). */
  lookups: number;
  listed: number;
  /** No answer within the time box. */
  timeouts: number;
  /** SERVFAIL, REFUSED, a refusal code (127.255.255.x), an answer outside 127/8. */
  failures: number;
  /** Not asked: the zone was resting after a failure. */
  skipped: number;
}

/** Where a name came from, to say it in words. */
type Subject =
  | { kind: 'client'; ip: string }
  | { kind: 'link'; host: string; name: string }
  | { kind: 'link-ip'; ip: string }
  | { kind: 'sender'; domain: string; name: string; which: 'From' | 'envelope' };

interface Question {
  /** The name asked, before the zone: `7.2.0.192` or `evil.example`. */
  label: string;
  zone: BlocklistZone;
  subject: Subject;
}

type Outcome =
  | { kind: 'listed'; codes: string[] }
  | { kind: 'clear' }
  | { kind: 'timeout' }
  | { kind: 'failed'; why: string };

/** Answers that mean "not on the list". */
const NOT_LISTED = new Set(['ENOTFOUND', 'ENODATA', 'ENONAME']);

/** Addresses no public blocklist lists (private, loopback, link-local, shared): never asked. */
const UNLISTABLE = (() => {
  const list = new net.BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
  ] as const)
    list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of [
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
  ] as const)
    list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** An address as blocklists want it, or null: `::ffff:192.0.2.7` is 192.0.2.7. */
function plainAddress(value: string): { ip: string; family: 4 | 6 } | null {
  const bare = value.trim().replace(/^\[|\]$/g, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  const ip = mapped ? mapped[1]! : bare;
  const family = net.isIP(ip);
  if (family === 0) return null;
  return { ip, family: family as 4 | 6 };
}

/** `192.0.2.7` → `7.2.0.192`; `2001:db8::7` → its 32 nibbles, last first. */
export function reversedAddress(ip: string): string | null {
  const address = plainAddress(ip);
  if (!address) return null;
  if (address.family === 4) return address.ip.split('.').reverse().join('.');
  // Expand `::` into the missing groups, then every group to four hex digits.
  const [head = '', tail = ''] = address.ip.toLowerCase().split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = address.ip.includes('::') ? (tail ? tail.split(':') : []) : [];
  const groups = address.ip.includes('::')
    ? [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups]
    : headGroups;
  return groups
    .map((g) => g.padStart(4, '0'))
    .join('')
    .split('')
    .reverse()
    .join('.');
}

/** Lower case, no trailing dot; null for what is not a host with a dot in it. */
function hostName(value: string): string | null {
  const host = value.trim().toLowerCase().replace(/\.+$/, '');
  if (!host.includes('.') || host.length > 253 || !/^[a-z0-9_.-]+$/.test(host)) return null;
  return host;
}

/** The name registered for `host` (`login.evil.co.uk` → `evil.co.uk`), or null when it has none. */
function registeredName(host: string): string | null {
  const { name, suffix } = registrable(host);
  return name && suffix ? `${name}.${suffix}` : null;
}

const domainOf = (address: string) => {
  const at = address.lastIndexOf('@');
  return at < 0 ? null : hostName(address.slice(at + 1));
};

/** The link's host, if it is a web (or FTP) link. */
function linkHost(href: string): string | null {
  let url: URL;
  try {
    url = new URL(href.trim());
  } catch {
    return null;
  }
  if (!['http:', 'https:', 'ftp:'].includes(url.protocol)) return null;
  return url.hostname || null;
}

/** A TXT reason as a finding may say it: printable, one line, bounded. */
function plainReason(txt: string[][]): string {
  const text = txt
    .map((parts) => parts.join(''))
    .join(' ')
    .replace(/[^\x20-\x7e]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > DNSBL_LIMITS.reasonChars ? `${text.slice(0, DNSBL_LIMITS.reasonChars - 1)}…` : text;
}

/** What a finding is about: a link's host, a sender domain in From or the envelope, an address. */
function subjectKey(subject: Subject): string {
  switch (subject.kind) {
    case 'client':
    case 'link-ip':
      return `${subject.kind} ${subject.ip}`;
    case 'link':
      return `link ${subject.host}`;
    case 'sender':
      return `sender ${subject.which} ${subject.domain}`;
  }
}

/** What a listing says, in words. */
function describe(question: Question, reason: string): string {
  const { subject, zone } = question;
  const on = `is listed on ${zone.zone}${reason ? ` (${reason})` : ''}`;
  switch (subject.kind) {
    case 'client':
      return `The sending server ${subject.ip} ${on}`;
    case 'link-ip':
      return `A link goes to the address ${subject.ip}, which ${on}`;
    case 'link':
      return subject.name === subject.host
        ? `A link goes to ${subject.host}, which ${on}`
        : `A link goes to ${subject.host}, whose domain ${subject.name} ${on}`;
    case 'sender':
      return `The sender's domain ${subject.name}${subject.name === subject.domain ? '' : ` (of ${subject.domain})`} in the ${subject.which === 'From' ? 'From address' : 'envelope sender'} ${on}`;
  }
}

/** What of a message (or of a click's link alone) blocklists are asked about. */
export interface BlocklistSubjects {
  envelope: Pick<EngineInput['envelope'], 'clientIp' | 'mailFrom'>;
  links: Array<Pick<EngineInput['links'][number], 'href'>>;
  parsed: Pick<EngineInput['parsed'], 'fromAddress'>;
  tenant: Pick<EngineInput['tenant'], 'domains'>;
}

/**
 * The questions a message asks: its client address on each DNSBL zone; on each URIBL zone its
 * sender domains (From, then envelope) and link hosts, each by registered name and full host,
 * at most DNSBL_LIMITS.names names. The tenant's own domains are not asked about.
 */
export function questionsOf(
  input: BlocklistSubjects,
  zones: { clientZones: BlocklistZone[]; uriZones: BlocklistZone[] },
  maxNames: number = DNSBL_LIMITS.names,
): Question[] {
  const questions: Question[] = [];
  const client = plainAddress(input.envelope.clientIp);
  if (client && !UNLISTABLE.check(client.ip, client.family === 4 ? 'ipv4' : 'ipv6')) {
    const label = reversedAddress(client.ip)!;
    for (const zone of zones.clientZones)
      questions.push({ label, zone, subject: { kind: 'client', ip: client.ip } });
  }
  if (zones.uriZones.length === 0) return questions;

  const own = input.tenant.domains.map((d) => d.toLowerCase());
  const isOwn = (host: string) => own.some((d) => host === d || host.endsWith(`.${d}`));
  const names = new Map<string, Subject>();
  const add = (label: string, subject: Subject) => {
    if (names.size < maxNames && !names.has(label)) names.set(label, subject);
  };
  const senders: Array<[string | null, 'From' | 'envelope']> = [
    [domainOf(input.parsed.fromAddress ?? ''), 'From'],
    [domainOf(input.envelope.mailFrom), 'envelope'],
  ];
  for (const [domain, which] of senders) {
    if (!domain || isOwn(domain)) continue;
    const name = registeredName(domain);
    if (name) add(name, { kind: 'sender', domain, name, which });
    add(domain, { kind: 'sender', domain, name: domain, which });
  }
  for (const link of input.links) {
    const raw = linkHost(link.href);
    if (!raw) continue;
    const address = plainAddress(raw);
    if (address) {
      if (!UNLISTABLE.check(address.ip, address.family === 4 ? 'ipv4' : 'ipv6'))
        add(reversedAddress(address.ip)!, { kind: 'link-ip', ip: address.ip });
      continue;
    }
    const host = hostName(raw);
    if (!host || isOwn(host)) continue;
    const name = registeredName(host);
    if (name) add(name, { kind: 'link', host, name });
    add(host, { kind: 'link', host, name: host });
  }
  for (const [label, subject] of names)
    for (const zone of zones.uriZones) questions.push({ label, zone, subject });
  return questions;
}

/** Resolves with `fallback` when `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  if (ms <= 0) return Promise.resolve(fallback);
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A listing (127.0.0.0/8) or not; 127.255.255.x is the zone refusing the question (Spamhaus' codes). */
function judgeAnswer(codes: string[]): Outcome {
  if (codes.length === 0) return { kind: 'clear' };
  const refusals = codes.filter((c) => c.startsWith('127.255.255.'));
  const foreign = codes.filter((c) => !c.startsWith('127.'));
  const listed = codes.filter((c) => c.startsWith('127.') && !c.startsWith('127.255.255.'));
  if (listed.length > 0) return { kind: 'listed', codes: listed };
  if (refusals.length > 0)
    return {
      kind: 'failed',
      why: `it refused the question (${refusals.join(', ')}: often a public resolver)`,
    };
  return {
    kind: 'failed',
    why: `it answered ${foreign.join(', ')}, not a 127.x code (the zone may be gone)`,
  };
}

/**
 * c-ares on `servers` (DNS_SERVERS; none: the system's), one try within `timeoutMs`: its default
 * retries would take seconds.
 */
export function blocklistResolver(
  servers: string[] = [],
  timeoutMs: number = DNSBL_LIMITS.lookupMs,
): DnsResolver {
  const resolver = new dns.promises.Resolver({ timeout: timeoutMs, tries: 1 });
  if (servers.length > 0) resolver.setServers(servers);
  return (name, rrtype) => resolver.resolve(name, rrtype) as Promise<string[] | string[][]>;
}

export type Dnsbl = Engine & {
  counts: DnsblCounts;
  /**
   * What the URI zones say now of one link's host (its registered name and full host), for a
   * click; the tenant's own domains are not asked about. Within DNSBL_LIMITS.clickBudgetMs.
   */
  linkListings(url: string, ownDomains: string[]): Promise<Finding[]>;
};

export function createDnsbl(options: DnsblOptions): Dnsbl {
  const { clientZones, uriZones } = options;
  const limits: Record<'lookupMs' | 'budgetMs' | 'restMs' | 'clickBudgetMs', number> = {
    ...DNSBL_LIMITS,
    ...options.limits,
  };
  const clock = options.clock ?? systemClock;
  const counts: DnsblCounts = { lookups: 0, listed: 0, timeouts: 0, failures: 0, skipped: 0 };
  const on = clientZones.length + uriZones.length > 0;
  const zoneWords = (zones: BlocklistZone[]) =>
    zones.map((z) => (z.verdict === 'spam' ? z.zone : `${z.zone} (${z.verdict})`)).join(', ');

  const resolve = cachingResolver({
    resolver: options.resolver ?? (on ? blocklistResolver(options.servers, limits.lookupMs) : undefined),
    clock,
    ttlMs: DNSBL_LIMITS.cacheMs,
    max: DNSBL_LIMITS.cacheEntries,
  });
  /** Zones resting after a failure: until when. */
  const resting = new Map<string, number>();

  const trouble = (zone: string, kind: 'timeout' | 'failed', why: string) => {
    if (kind === 'timeout') counts.timeouts += 1;
    else counts.failures += 1;
    const now = clock.now().getTime();
    if ((resting.get(zone) ?? 0) > now) return;
    resting.set(zone, now + limits.restMs);
    options.log?.warn(
      { engine: 'dnsbl', zone, restSeconds: limits.restMs / 1_000 },
      `DNS blocklist ${zone}: ${why}; not asked for ${limits.restMs / 1_000} s, mail goes on without it`,
    );
  };

  /** One A question within the time box, its answer judged. */
  async function ask(name: string): Promise<Outcome> {
    const TIMEOUT = Symbol('timeout');
    const answer = await within<string[] | symbol | Error>(
      resolve(name, 'A').then(
        (codes) => codes as string[],
        (error: Error) => error,
      ),
      limits.lookupMs,
      TIMEOUT,
    );
    if (answer === TIMEOUT) return { kind: 'timeout' };
    if (answer instanceof Error) {
      const code = (answer as Error & { code?: string }).code ?? 'EUNKNOWN';
      if (NOT_LISTED.has(code)) return { kind: 'clear' };
      if (code === 'ETIMEOUT') return { kind: 'timeout' };
      return { kind: 'failed', why: `the DNS server answered ${code}` };
    }
    return judgeAnswer(answer as string[]);
  }

  /** The zone's TXT reason for a listed name; '' when it has none or it is late. */
  async function reasonOf(name: string, msLeft: number): Promise<string> {
    const txt = await within(
      resolve(name, 'TXT').then(
        (records) => records as string[][],
        () => [] as string[][],
      ),
      Math.min(limits.lookupMs, msLeft),
      [] as string[][],
    );
    return plainReason(txt);
  }

  return {
    name: 'dnsbl',
    // The Security Engines' Anti-Spam switch: blocklists are the oldest anti-spam check, and a
    // tenant that turns Anti-Spam off expects no mail held for its sender's reputation either.
    tool: 'anti_spam',
    version: 'DNS blocklists',
    status: on ? 'on' : 'off',
    // Read when Service Status is: the zones, and the lookups that failed since the start.
    get detail() {
      if (!on) return 'DNSBL_ZONES and URIBL_ZONES are not set';
      const troubles = [
        counts.timeouts ? `${counts.timeouts} got no answer in time` : '',
        counts.failures ? `${counts.failures} failed` : '',
      ].filter(Boolean);
      return [
        clientZones.length ? `client address on ${zoneWords(clientZones)}` : '',
        uriZones.length ? `links and sender domains on ${zoneWords(uriZones)}` : '',
        troubles.length ? `of ${counts.lookups} lookups since the start, ${troubles.join(' and ')}` : '',
      ]
        .filter(Boolean)
        .join('; ');
    },
    // A blocklist that cannot be asked is no evidence against the message.
    failClosed: false,
    counts,
    async scan(input) {
      return findingsOf(questionsOf(input, { clientZones, uriZones }), limits.budgetMs);
    },
    async linkListings(url, ownDomains) {
      if (uriZones.length === 0) return [];
      const link: BlocklistSubjects = {
        envelope: { clientIp: '', mailFrom: '' },
        links: [{ href: url }],
        parsed: { fromAddress: '' },
        tenant: { domains: ownDomains },
      };
      return findingsOf(questionsOf(link, { clientZones: [], uriZones }), limits.clickBudgetMs);
    },
  };

  /** The questions asked together within `budgetMs`, and one finding per listed thing and zone. */
  async function findingsOf(asked: Question[], budgetMs: number): Promise<Finding[]> {
    const started = performance.now();
    const msLeft = () => budgetMs - (performance.now() - started);
    const now = clock.now().getTime();
    const questions = asked.filter((q) => {
      if ((resting.get(q.zone.zone) ?? 0) <= now) return true;
      counts.skipped += 1;
      return false;
    });
    counts.lookups += questions.length;
    const LATE = { kind: 'late' } as const;
    const outcomes = await Promise.all(
      questions.map((q) => within<Outcome | typeof LATE>(ask(`${q.label}.${q.zone.zone}`), msLeft(), LATE)),
    );
    const findings: Finding[] = [];
    const listed: Array<{ question: Question; codes: string[]; reason: Promise<string> }> = [];
    outcomes.forEach((outcome, i) => {
      const question = questions[i]!;
      const zone = question.zone.zone;
      if (outcome.kind === 'timeout') trouble(zone, 'timeout', `no answer within ${limits.lookupMs} ms`);
      else if (outcome.kind === 'late') counts.timeouts += 1;
      else if (outcome.kind === 'failed') trouble(zone, 'failed', outcome.why);
      else if (outcome.kind === 'listed') {
        counts.listed += 1;
        listed.push({
          question,
          codes: outcome.codes,
          reason: reasonOf(`${question.label}.${zone}`, msLeft()),
        });
      }
    });
    // One finding per thing and zone: a link whose domain and host are both listed is one link.
    const told = new Set<string>();
    for (const { question, codes, reason } of listed) {
      const key = `${question.zone.zone}\n${subjectKey(question.subject)}`;
      if (told.has(key)) continue;
      told.add(key);
      findings.push({
        engine: 'dnsbl',
        verdict: question.zone.verdict,
        // Without a TXT reason, the list's answer code says which of its lists it is on.
        reason: describe(question, (await reason) || `answer ${codes.join(', ')}`),
      });
    }
    return findings;
  }
}
