import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { isDirectLocalCaller } from '../../lib/local-caller.ts';
import { hashToken, safeEqual } from '../../lib/tokens.ts';

export const METRICS_PATH = '/metrics';

/**
 * Who may read the metrics: a scraper on this host talking to the server directly, or anyone with
 * METRICS_TOKEN as a bearer token (compared as digests, so neither its content nor its length
 * shows in the time taken).
 */
export function mayReadMetrics(request: FastifyRequest, token: string | undefined): boolean {
  if (isDirectLocalCaller(request)) return true;
  if (!token) return false;
  return safeEqual(hashToken(request.headers.authorization ?? ''), hashToken(`Bearer ${token}`));
}

/**
 * GET /metrics (issue 14): Prometheus' text format. Not part of the public API (hidden from the
 * OpenAPI document). A GET: the CSRF rule does not apply; no session is needed; no rate limit
 * (a scraper calls it every few seconds).
 */
export const metricsRoutes: FastifyPluginAsyncZod = async (app) => {
  const metrics = app.services.metrics;
  const token = app.config.metricsToken;
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    if (!mayReadMetrics(request, token)) {
      throw new AppError('forbidden', 'Metrics are readable from this host, or with the metrics token');
    }
    reply.header('cache-control', 'no-store').type(metrics.contentType);
    return metrics.scrape();
  });
};
