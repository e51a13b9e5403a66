import { errorResponseSchema } from '@moat/contracts/errors';
import {
  MY_QUARANTINE_API,
  myMessageDetailSchema,
  myMessageListSchema,
  myQuarantineQuerySchema,
  myRestoreBodySchema,
  myRestoreResponseSchema,
} from '@moat/contracts/my-quarantine';
import { idParamsSchema } from '@moat/contracts/quarantine-admin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  405: errorResponseSchema,
  409: errorResponseSchema,
};

/** Every signed-in user's own held mail (issue 12): listed, previewed, restored per the policy. */
export const myQuarantineRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.myQuarantine;
  const tags = ['my-quarantine'];
  const common = { preHandler: app.requireUser };

  app.get(
    MY_QUARANTINE_API.messages,
    {
      ...common,
      schema: {
        tags,
        summary: 'Your held messages (addressed to you), newest first, with what the policy lets you do',
        querystring: myQuarantineQuerySchema,
        response: { 200: myMessageListSchema, ...errors },
      },
    },
    async (request) => service.list(signedIn(request).user, request.query),
  );

  app.get(
    MY_QUARANTINE_API.message,
    {
      ...common,
      schema: {
        tags,
        summary: 'One of your held messages: headers and the body as inert text',
        params: idParamsSchema,
        response: { 200: myMessageDetailSchema, ...errors },
      },
    },
    async (request) => service.message(signedIn(request).user, request.params.id),
  );

  app.post(
    MY_QUARANTINE_API.restore,
    {
      ...common,
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary:
          'Restore one of your held messages (automatic mode) or ask an admin for it (request modes, with your words); 405 when the policy forbids it',
        params: idParamsSchema,
        body: myRestoreBodySchema,
        response: { 200: myRestoreResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.restore(
        signedIn(request).user,
        request.params.id,
        request.body.commentary,
        userActorOf(request),
      ),
  );
};
