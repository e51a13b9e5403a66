import { errorResponseSchema } from '@moat/contracts/errors';
import {
  type LearnResult,
  learnBodySchema,
  learnParamsSchema,
  learnResultSchema,
  SPAM_LEARNING_API,
} from '@moat/contracts/spam-learning';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';

/** An admin's "spam / not spam" for a message (issue 13): it teaches the tenant's anti-spam engine. */
export const spamLearningRoutes: FastifyPluginAsyncZod = async (app) => {
  const errors = {
    400: errorResponseSchema,
    403: errorResponseSchema,
    404: errorResponseSchema,
    409: errorResponseSchema,
  };
  const routes = [
    { url: SPAM_LEARNING_API.byMailLog, by: (id: string) => ({ id }), what: 'a Mail Explorer message' },
    { url: SPAM_LEARNING_API.byHeld, by: (id: string) => ({ heldId: id }), what: 'a held message' },
  ];
  for (const route of routes) {
    app.post(
      route.url,
      {
        preHandler: app.requireAdmin,
        schema: {
          tags: ['mail-explorer'],
          summary: `Mark ${route.what} as spam or not spam: the organisation's anti-spam engine learns it (once)`,
          params: learnParamsSchema,
          body: learnBodySchema,
          response: { 200: learnResultSchema, ...errors },
        },
      },
      async (request): Promise<LearnResult> => {
        const { user } = signedIn(request);
        return app.services.spamLearning.mark(
          user.tenantId,
          route.by(request.params.id),
          request.body.label,
          userActorOf(request),
          user.id,
        );
      },
    );
  }
};
