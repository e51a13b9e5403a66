import {
  CONSOLE_API,
  trialExtensionRequestSchema,
  trialExtensionResponseSchema,
} from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';
import { tenantOfRequest } from '../deployment/deployment.routes.ts';

export const trialRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post(
    CONSOLE_API.trialStatus,
    {
      preHandler: app.requireAdmin,
      config: { rateLimit: { max: 10, timeWindow: '1 hour' } },
      schema: {
        tags: ['console'],
        summary: 'Ask the provider to extend an expired poc trial (admins); stored until approved',
        body: trialExtensionRequestSchema,
        response: {
          200: trialExtensionResponseSchema,
          400: errorResponseSchema,
          403: errorResponseSchema,
          429: errorResponseSchema,
        },
      },
    },
    async (request) =>
      app.services.trial.request(
        await tenantOfRequest(request, app.services.deployment),
        signedIn(request).user,
        request.body,
        userActorOf(request),
      ),
  );
};
