import { CONSOLE_API, searchQuerySchema, searchResponseSchema } from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';

export const searchRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    CONSOLE_API.search,
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      schema: {
        tags: ['console'],
        summary: "Quick search over the tenant's messages, events, users and policy rules, grouped by app",
        querystring: searchQuerySchema,
        response: {
          200: searchResponseSchema,
          400: errorResponseSchema,
          403: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      return app.services.search.search(
        user.tenantId,
        request.query,
        user.role === 'admin' ? null : user.email,
      );
    },
  );
};
