import { isIPv4, isIPv6 } from 'node:net';

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
