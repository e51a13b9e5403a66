import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { isDirectLocalCaller } from '../../lib/local-caller.ts';
import { hashToken, safeEqual } from '../../lib/tokens.ts';

export const METRICS_PATH = '/metrics';

/** Host names a scraper on this host uses: anything else is a browser led here by DNS rebinding. */
const LOCAL_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/** Whether the server listens on loopback only (HOST), so that nothing off this host reaches it. */
export const boundToLoopback = (host: string): boolean =>
  ['127.0.0.1', '::1', '[::1]', 'localhost'].includes(host.trim().toLowerCase());

/**
 * Who may read the metrics: anyone with METRICS_TOKEN as a bearer token (compared as digests, so
 * neither its content nor its length shows in the time taken); or, only when the server listens
 * on loopback alone (HOST), a scraper on this host talking to it directly by a loopback name with
 * no proxy configured (TRUST_PROXY unset). A server bound to other addresses needs the token even
 * from loopback: a proxy on this host may relay the internet from loopback without a forwarding
 * header (nginx's proxy_pass adds none by default).
 */
export function mayReadMetrics(
  request: FastifyRequest,
  options: { token: string | undefined; behindProxy: boolean; loopbackOnly: boolean },
): boolean {
  if (options.token) {
    const presented = hashToken(request.headers.authorization ?? '');
    if (safeEqual(presented, hashToken(`Bearer ${options.token}`))) return true;
  }
  return (
    options.loopbackOnly &&
    !options.behindProxy &&
    isDirectLocalCaller(request) &&
    LOCAL_HOST.test(request.headers.host ?? '')
  );
}

/**
 * GET /metrics (issue 14): Prometheus' text format. Not part of the public API (hidden from the
 * OpenAPI document). A GET: the CSRF rule does not apply; no session is needed; no rate limit
 * (a scraper calls it every few seconds).
 */
export const metricsRoutes: FastifyPluginAsyncZod = async (app) => {
  const metrics = app.services.metrics;
  const access = {
    token: app.config.metricsToken,
    behindProxy: Array.isArray(app.config.trustProxy)
      ? app.config.trustProxy.length > 0
      : app.config.trustProxy,
    loopbackOnly: boundToLoopback(app.config.host),
  };
  const refusal = access.loopbackOnly
    ? 'Metrics are readable from this host (without TRUST_PROXY), or with the metrics token'
    : access.token
      ? 'Metrics need the metrics token (Authorization: Bearer <METRICS_TOKEN>)'
      : 'Set METRICS_TOKEN to read the metrics: this server listens on more than loopback (HOST), so a caller on this host may be a proxy relaying anyone';
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, access)) throw new AppError('forbidden', refusal);
    reply.header('cache-control', 'no-store').type(metrics.contentType);
    return metrics.scrape();
  });
};
