import dns from 'node:dns';
import { isIP } from 'node:net';
import { addressRefusal, type NextHopNetworks } from './next-hop.ts';
import { createRelay, type Relay, type RelayEnvelope, type RelayError } from './relay.ts';

/** The DNS questions MX delivery asks (node's Resolver answers them; tests give a local server). */
export interface MxResolver {
  resolveMx(domain: string): Promise<Array<{ priority: number; exchange: string }>>;
  resolve4(host: string): Promise<string[]>;
  resolve6(host: string): Promise<string[]>;
}

/** DNS_SERVERS (or the system's), 5 s and two tries per question: a slow answer delays, never loses, mail. */
export function systemMxResolver(servers: string[] = []): MxResolver {
  const resolver = new dns.promises.Resolver({ timeout: 5000, tries: 2 });
  if (servers.length > 0) resolver.setServers(servers);
  return {
    resolveMx: (domain) => resolver.resolveMx(domain),
    resolve4: (host) => resolver.resolve4(host),
    resolve6: (host) => resolver.resolve6(host),
  };
}

/** Connections kept open to one destination address at once (Postfix: 20 per destination; a gateway shares). */
const PER_DESTINATION = 2;
/** Destinations (MX addresses) with a pool kept at once; the least recently used closes first. */
const MAX_DESTINATIONS = 256;
/** How long an MX answer is used before it is asked again. */
const MX_CACHE_MS = 5 * 60_000;
/** MX hosts tried per attempt, lowest preference first (Postfix: smtp_mx_address_limit 5). */
const MX_TRIED = 5;
const NOT_FOUND = new Set(['ENOTFOUND', 'NXDOMAIN']);
const NO_DATA = new Set(['ENODATA', 'ENONAME']);

/** A refusal that will not change with retries: the mail bounces at once. */
const permanent = (message: string, code: number) =>
  Object.assign(new Error(message), { responseCode: code, response: `${code} ${message}` }) as RelayError;

/**
 * The way out for the tenants' outbound mail (issue 38): through the smarthost when
 * OUTBOUND_RELAY_URL is set, else to each recipient domain's MX (RFC 5321 §5.1: lowest preference
 * first, the domain itself when it has no MX, none at all for a null MX, RFC 7505), with
 * opportunistic STARTTLS, a few connections per destination address, and the next MX tried when one
 * cannot be reached. A reply (4xx, 5xx) from a server is its answer: not tried elsewhere.
 */
export function createOutboundRoutes(deps: {
  relayUrl: string | undefined;
  resolver: MxResolver;
  /** Port of the receiving servers (25; a test points it at its own). */
  mxPort: number;
  /** The name Moat says in EHLO. */
  heloName: string;
  /**
   * Which addresses an MX may have (OUTBOUND_MX_NETWORKS): `public` never connects to a private,
   * loopback or link-local one, so a domain whose MX points inside cannot make Moat probe its own
   * network; `any` (a test, a closed network) allows private and loopback ones.
   */
  networks?: NextHopNetworks;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  const smarthost: Relay | null = deps.relayUrl ? createRelay(deps.relayUrl) : null;
  const pools = new Map<string, Relay>();
  const mxCache = new Map<string, { until: number; hosts: Promise<string[]> }>();

  async function lookupHosts(domain: string): Promise<string[]> {
    try {
      const records = await deps.resolver.resolveMx(domain);
      // RFC 7505: a single MX "." says the domain takes no mail.
      if (records.length === 1 && (records[0]!.exchange === '' || records[0]!.exchange === '.')) {
        throw permanent(`5.1.10 ${domain} accepts no mail (null MX)`, 556);
      }
      return records
        .filter((r) => r.exchange !== '' && r.exchange !== '.')
        .sort((a, b) => a.priority - b.priority)
        .map((r) => r.exchange.replace(/\.$/, '').toLowerCase());
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (NOT_FOUND.has(code)) throw permanent(`5.1.2 ${domain} does not exist (NXDOMAIN)`, 550);
      // No MX: the domain itself is its mail host (RFC 5321 §5.1).
      if (NO_DATA.has(code)) return [domain];
      throw error;
    }
  }

  function hostsOf(domain: string): Promise<string[]> {
    const cached = mxCache.get(domain);
    if (cached && cached.until > now()) return cached.hosts;
    const hosts = lookupHosts(domain);
    // A failed look-up is asked again next time, not remembered.
    hosts.catch(() => mxCache.delete(domain));
    mxCache.set(domain, { until: now() + MX_CACHE_MS, hosts });
    if (mxCache.size > 10_000) mxCache.delete(mxCache.keys().next().value as string);
    return hosts;
  }

  async function addressesOf(host: string): Promise<string[]> {
    if (isIP(host)) return [host];
    const [v4, v6] = await Promise.all([
      deps.resolver.resolve4(host).catch(() => [] as string[]),
      deps.resolver.resolve6(host).catch(() => [] as string[]),
    ]);
    return [...v4, ...v6];
  }

  function poolFor(address: string, host: string): Relay {
    const key = `${address}|${host}`;
    const kept = pools.get(key);
    if (kept) {
      // Most recently used last: the first in the map is the one to close when full.
      pools.delete(key);
      pools.set(key, kept);
      return kept;
    }
    if (pools.size >= MAX_DESTINATIONS) {
      const [oldest, relay] = pools.entries().next().value as [string, Relay];
      pools.delete(oldest);
      relay.close();
    }
    const target = address.includes(':') ? `[${address}]` : address;
    const query = new URLSearchParams({
      maxConnections: String(PER_DESTINATION),
      name: deps.heloName,
      // Opportunistic TLS (RFC 3207 as MTAs use it): encrypt when offered, whatever the certificate.
      'tls.rejectUnauthorized': 'false',
      'tls.servername': host,
      connectionTimeout: '30000',
      greetingTimeout: '30000',
      socketTimeout: '120000',
    });
    const relay = createRelay(`smtp://${target}:${deps.mxPort}?${query}`);
    pools.set(key, relay);
    return relay;
  }

  return {
    /** Deliver one message to one recipient; resolves with the receiving server's answer. */
    async send(envelope: RelayEnvelope, raw: Buffer): Promise<string> {
      if (smarthost) return smarthost.send(envelope, raw);
      const recipient = envelope.to[0]!;
      const domain = recipient.slice(recipient.lastIndexOf('@') + 1).toLowerCase();
      const hosts = (await hostsOf(domain)).slice(0, MX_TRIED);
      let last: RelayError | null = null;
      for (const host of hosts) {
        const found = await addressesOf(host);
        const addresses = found.filter((a) => addressRefusal(a, deps.networks ?? 'public') === null);
        if (found.length > 0 && addresses.length === 0) {
          last = permanent(`5.4.4 ${host} (MX of ${domain}) has no address this server delivers to`, 550);
          continue;
        }
        if (addresses.length === 0) {
          last = Object.assign(new Error(`4.4.4 ${host} (MX of ${domain}) has no address`), {
            code: 'ENOTFOUND',
          });
          continue;
        }
        for (const address of addresses) {
          try {
            return await poolFor(address, host).send(envelope, raw);
          } catch (error) {
            const failed = error as RelayError;
            // The server answered: that is the destination's word, not a reason to try another.
            if (failed.responseCode !== undefined) throw failed;
            last = failed;
          }
        }
      }
      throw last ?? new Error(`4.4.4 No mail host for ${domain}`);
    },
    close(): void {
      smarthost?.close();
      for (const relay of pools.values()) relay.close();
      pools.clear();
    },
  };
}
export type OutboundRoutes = ReturnType<typeof createOutboundRoutes>;
