import { CONSOLE_API, overviewSchema } from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';

export const overviewRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    CONSOLE_API.overview,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['console'],
        summary: 'Overview dashboard counts: held messages, pending requests, releases and events',
        response: { 200: overviewSchema, 403: errorResponseSchema },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      return app.services.overview.overview(user.tenantId, user.role === 'admin' ? null : user.email);
    },
  );
};
