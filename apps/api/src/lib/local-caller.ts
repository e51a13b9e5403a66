import type { FastifyRequest } from 'fastify';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** Headers a proxy adds when it relays a request. */
const RELAY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'via'];

/**
 * A caller on this host, talking to the server directly: the connection's own address (never
 * `request.ip`, which trusts X-Forwarded-For behind TRUST_PROXY) is loopback, and nothing says the
 * request was relayed — a reverse proxy on this host brings the whole internet in from loopback.
 */
export function isDirectLocalCaller(request: FastifyRequest): boolean {
  const relayed = RELAY_HEADERS.some((h) => request.headers[h] !== undefined);
  return !relayed && LOOPBACK.has(request.socket.remoteAddress ?? '');
}
