import {
  ANALYTICS_API,
  type AnalyticsDashboard,
  analyticsDashboardSchema,
  analyticsQuerySchema,
} from '@moat/contracts/analytics';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';

/** Analytics Dashboard: the tenant's mail and detections over a time range (admins). */
export const analyticsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    ANALYTICS_API.dashboard,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['analytics'],
        summary:
          'Mail volume per hour or day by verdict and action, top targeted recipients, top blocked senders and domains, detections per engine, SPF/DKIM/DMARC pass rates (default: the last 7 days, at most 366)',
        querystring: analyticsQuerySchema,
        response: { 200: analyticsDashboardSchema, 400: errorResponseSchema, 403: errorResponseSchema },
      },
    },
    async (request): Promise<AnalyticsDashboard> =>
      app.services.analytics.dashboard(signedIn(request).user.tenantId, request.query),
  );
};
