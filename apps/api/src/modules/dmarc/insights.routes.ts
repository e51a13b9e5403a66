import {
  DMARC_API,
  overviewQuerySchema,
  recommendationsResponseSchema,
  reverseQuerySchema,
  reverseResponseSchema,
} from '@moat/contracts/dmarc';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/** DMARC's computed advice (issue 37): what to change next, and the reverse names of sources. Admins only. */
export const dmarcInsightsRoutes: FastifyPluginAsyncZod = async (app) => {
  const tags = ['dmarc'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    DMARC_API.recommendations,
    {
      ...common,
      // Each look asks DNS (DMARC, SPF, DKIM) and reads the period's failing rows.
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary:
          'Per domain, what to change next (publish, fix a source, a stricter policy, SPF, DKIM), explained',
        querystring: overviewQuerySchema,
        response: { 200: recommendationsResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId } = tenantActorOf(request);
      return app.services.dmarcRecommendations.of(tenantId, request.query.days);
    },
  );

  app.get(
    DMARC_API.reverse,
    {
      ...common,
      // Up to 50 PTR lookups a request, each answer kept an hour: a page of the Explorer at a time.
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'The reverse names (PTR) of up to 50 source addresses (`ip` repeated)',
        querystring: reverseQuerySchema,
        response: { 200: reverseResponseSchema, ...errors },
      },
    },
    async (request) => ({ names: await app.services.reverseNames.namesOf(request.query.ip) }),
  );
};
