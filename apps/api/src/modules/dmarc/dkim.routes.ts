import { DMARC_API, dkimQuerySchema, dkimResponseSchema } from '@moat/contracts/dmarc';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

/** DKIM Management (issue 37): admins only. */
export const dkimRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    DMARC_API.dkim,
    {
      preHandler: app.requireAdmin,
      // Each call asks DNS about every domain's selectors.
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags: ['dmarc'],
        summary:
          "Each domain's DKIM selectors (seen in reports, in mail and in DNS), each key's type, size and problems, and a rotation plan (DKIM Management)",
        querystring: dkimQuerySchema,
        response: {
          200: dkimResponseSchema,
          400: errorResponseSchema,
          403: errorResponseSchema,
          404: errorResponseSchema,
        },
      },
    },
    async (request) => app.services.dkim.check(tenantActorOf(request).tenantId, request.query.domain),
  );
};
