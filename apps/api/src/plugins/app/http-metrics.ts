import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { methodLabel } from '../../lib/metrics.ts';

/**
 * Every answer counted and timed (`moat_http_requests_total`, `moat_http_request_duration_seconds`)
 * by its route's pattern (`/api/v1/mail_explorer/:id`), never the path itself; a request no route
 * matched is `unmatched`.
 */
export const httpMetricsPlugin = fp(async (app: FastifyInstance) => {
  const { httpRequests, httpDuration } = app.services.metrics;
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: methodLabel(request.method),
      route: (request.is404 ? undefined : request.routeOptions.url) ?? 'unmatched',
      status: String(reply.statusCode),
    };
    httpRequests.inc(labels);
    httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
});
