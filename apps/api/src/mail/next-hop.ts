import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import type { RelayError } from './relay.ts';

/** A tenant's own next hop: its mail server, where Moat delivers the mail it lets through. */
export interface NextHop {
  host: string;
  port: number;
}

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * `host`, `host:port`, `[v6]` or `[v6]:port` as an admin types it (port 25 when left out); null
 * when it is none of these. A host name may be a single label (an internal server's name).
 */
export function parseNextHop(input: string): NextHop | null {
  const text = input.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  const plain = /^([^:[\]]+)(?::(\d{1,5}))?$/.exec(text);
  const [, host = '', portText] = bracketed ?? plain ?? [];
  const port = portText === undefined ? 25 : Number(portText);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return null;
  if (bracketed) return isIPv6(host) ? { host, port } : null;
  if (isIPv4(host)) return { host, port };
  // A name made only of digits and dots that is not an address (1.2.3) is a typo, not a host.
  if (/^[\d.]+$/.test(host) || !HOST_NAME.test(host)) return null;
  return { host, port };
}

/** How a next hop is stored: `smtp://host:port`. */
export function nextHopUrl(hop: NextHop): string {
  return `smtp://${isIPv6(hop.host) ? `[${hop.host}]` : hop.host}:${hop.port}`;
}

/** `host:port` of a stored next hop, as the console shows it. */
export function nextHopLabel(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '25'}`;
}

/**
 * The relay URL (nodemailer's) for a tenant's next hop: STARTTLS when the server offers it,
 * without checking its certificate (an organisation's own server often has a private one; as
 * Postfix's `smtp_tls_security_level = may`), plus any `options` (timeouts, `pool=false`).
 */
export function nextHopRelayUrl(url: string, options: Record<string, string> = {}): string {
  return relayUrlWith(url, { 'tls.rejectUnauthorized': 'false', ...options });
}

/** A relay URL with nodemailer options set in its query (timeouts, `pool=false`). */
export function relayUrlWith(url: string, options: Record<string, string>): string {
  const parsed = new URL(url);
  for (const [key, value] of Object.entries(options)) parsed.searchParams.set(key, value);
  return parsed.href;
}

/**
 * Where an organisation's next hop may be (NEXT_HOP_NETWORKS): `public`, a public address on a
 * mail port (a shared deployment: no organisation reaches the deployment's own network); `any`,
 * also private and loopback addresses on any port (an organisation's own deployment, its mail
 * server beside it). Link-local (cloud metadata), unspecified, multicast and reserved addresses
 * are never a next hop.
 */
export type NextHopNetworks = 'public' | 'any';
export const NEXT_HOP_NETWORKS = ['public', 'any'] as const;
/** The ports a next hop may use on `public`: SMTP, SMTPS, submission and the common alternative. */
export const PUBLIC_NEXT_HOP_PORTS = [25, 465, 587, 2525] as const;

function ranges(list: Array<[string, number, 'ipv4' | 'ipv6']>): BlockList {
  const block = new BlockList();
  for (const [network, prefix, type] of list) block.addSubnet(network, prefix, type);
  return block;
}
/** Never a next hop: link-local (metadata services), this-network, multicast, reserved. */
const NEVER = ranges([
  ['0.0.0.0', 8, 'ipv4'],
  ['169.254.0.0', 16, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'],
  ['240.0.0.0', 4, 'ipv4'],
  ['::', 128, 'ipv6'],
  ['fe80::', 10, 'ipv6'],
  ['ff00::', 8, 'ipv6'],
]);
/** Not a public address: loopback, private, shared (CGNAT), benchmarking, unique local. */
const PRIVATE = ranges([
  ['10.0.0.0', 8, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'],
  ['127.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['::1', 128, 'ipv6'],
  ['fc00::', 7, 'ipv6'],
]);

/** An IPv4 address written as IPv6 (::ffff:a.b.c.d) is that IPv4 address. */
const plainAddress = (address: string) => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Why an address may not be a next hop under `networks`, or null when it may. */
export function addressRefusal(address: string, networks: NextHopNetworks): string | null {
  const ip = plainAddress(address);
  const type = isIPv4(ip) ? 'ipv4' : isIPv6(ip) ? 'ipv6' : null;
  if (!type) return `${address} is not an IP address`;
  if (NEVER.check(ip, type)) return `${ip} is a link-local, multicast or reserved address`;
  if (networks === 'public' && PRIVATE.check(ip, type)) {
    return `${ip} is a private or loopback address, which this deployment does not deliver to`;
  }
  return null;
}

export type HostLookup = (host: string) => Promise<string[]>;
const systemLookup: HostLookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * The addresses of a next hop, each allowed under `networks` (all of them, so a name with one
 * private address among public ones is refused), and its port; a reason when it is refused.
 */
export async function checkNextHop(
  hop: NextHop,
  networks: NextHopNetworks,
  lookup: HostLookup = systemLookup,
): Promise<{ addresses: string[] } | { refused: string }> {
  if (networks === 'public' && !(PUBLIC_NEXT_HOP_PORTS as readonly number[]).includes(hop.port)) {
    return { refused: `Port ${hop.port} is not a mail port (${PUBLIC_NEXT_HOP_PORTS.join(', ')})` };
  }
  let addresses: string[];
  try {
    addresses = isIPv4(hop.host) || isIPv6(hop.host) ? [hop.host] : await lookup(hop.host);
  } catch {
    return { refused: `${hop.host} does not resolve to an address` };
  }
  if (addresses.length === 0) return { refused: `${hop.host} does not resolve to an address` };
  for (const address of addresses) {
    const why = addressRefusal(address, networks);
    if (why) return { refused: why };
  }
  return { addresses: addresses.map(plainAddress) };
}

/**
 * The relay URL that reaches a stored next hop at an address checked now: the connection goes to
 * that address (a name that resolves elsewhere a moment later changes nothing), with the name
 * kept for TLS (SNI). Throws with the reason when the next hop is refused.
 */
export async function checkedRelayUrl(
  url: string,
  networks: NextHopNetworks,
  options: Record<string, string> = {},
  lookup?: HostLookup,
): Promise<string> {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const hop = { host, port: Number(parsed.port || 25) };
  const checked = await checkNextHop(hop, networks, lookup);
  if ('refused' in checked) throw Object.assign(new Error(checked.refused), { code: 'EHOPREFUSED' });
  const address = checked.addresses[0]!;
  parsed.hostname = isIPv6(address) ? `[${address}]` : address;
  const name: Record<string, string> = isIPv4(host) || isIPv6(host) ? {} : { 'tls.servername': host };
  return nextHopRelayUrl(parsed.href, { ...name, ...options });
}

/** What each connection failure means, in words: never the bytes a server that is not SMTP sent. */
const CONNECTION_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'ECONNREFUSED: nothing listens on that port',
  ETIMEDOUT: 'ETIMEDOUT: the server did not answer in time',
  ENOTFOUND: 'ENOTFOUND: that host name does not resolve',
  EAI_AGAIN: 'EAI_AGAIN: the host name could not be resolved now',
  EHOSTUNREACH: 'EHOSTUNREACH: that host cannot be reached',
  ENETUNREACH: 'ENETUNREACH: that network cannot be reached',
  ECONNRESET: 'ECONNRESET: the server closed the connection',
  ETLS: 'ETLS: the TLS handshake failed',
};

/**
 * Why the test message was not delivered: the mail server's own SMTP reply (a 4xx or 5xx line,
 * printable characters only), or what went wrong with the connection in fixed words. Whatever
 * else a server sent (a service that is not a mail server) is not echoed back.
 */
export function whyNotDelivered(error: RelayError): string {
  const reply = (error as { response?: unknown }).response;
  if (error.responseCode && typeof reply === 'string' && /^[45]\d\d[ -]/.test(reply)) {
    return reply
      .replace(/[^\x20-\x7e]+/g, ' ')
      .trim()
      .slice(0, 300);
  }
  const { originalCode, timeoutType } = error as { originalCode?: string; timeoutType?: string };
  const code = originalCode ?? timeoutType ?? error.code ?? '';
  return (
    CONNECTION_FAILURES[code] ??
    (code === 'GREETING_TIMEOUT' || code === 'EPROTOCOL' || code === 'ECONNECTION'
      ? `${code}: the server did not answer as a mail server (SMTP)`
      : 'The mail server could not be reached')
  );
}
