import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { isDirectLocalCaller } from '../../lib/local-caller.ts';
import { hashToken, safeEqual } from '../../lib/tokens.ts';

export const METRICS_PATH = '/metrics';

/** Host names a scraper on this host uses: anything else is a browser led here by DNS rebinding. */
const LOCAL_HOST = /^(?:localhost|127\.0\.0\.1|\[::1\])(?::\d{1,5})?$/i;

/**
 * Who may read the metrics: anyone with METRICS_TOKEN as a bearer token (compared as digests, so
 * neither its content nor its length shows in the time taken); or, when no proxy is configured
 * (TRUST_PROXY unset: a proxy may relay the internet from loopback without saying so), a scraper
 * on this host talking to the server directly by a loopback name.
 */
export function mayReadMetrics(
  request: FastifyRequest,
  options: { token: string | undefined; behindProxy: boolean },
): boolean {
  if (options.token) {
    const presented = hashToken(request.headers.authorization ?? '');
    if (safeEqual(presented, hashToken(`Bearer ${options.token}`))) return true;
  }
  return !options.behindProxy && isDirectLocalCaller(request) && LOCAL_HOST.test(request.headers.host ?? '');
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
  };
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, access)) {
      throw new AppError(
        'forbidden',
        'Metrics are readable from this host (without TRUST_PROXY), or with the metrics token',
      );
    }
    reply.header('cache-control', 'no-store').type(metrics.contentType);
    return metrics.scrape();
  });
};
