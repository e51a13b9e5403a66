import { errorResponseSchema } from '@moat/contracts/errors';
import {
  addMySenderBodySchema,
  deleteMySenderResultSchema,
  MY_SENDERS_API,
  mySenderIdParamsSchema,
  mySenderListSchema,
  mySenderSchema,
} from '@moat/contracts/my-senders';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/** Every signed-in user's own allow and block list of senders (issue 12, SPEC §6). */
export const mySendersRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.mySenders;
  const tags = ['my-senders'];
  const common = { preHandler: app.requireUser };
  const writes = { rateLimit: { max: 60, timeWindow: '1 minute' } };

  app.get(
    MY_SENDERS_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary: 'Your own allowed and blocked senders, newest first',
        response: { 200: mySenderListSchema, ...errors },
      },
    },
    async (request) => service.list(signedIn(request).user),
  );

  app.post(
    MY_SENDERS_API.entries,
    {
      ...common,
      config: writes,
      schema: {
        tags,
        summary:
          'Allow or block an email address or a domain for your own mail; a value already on your lists moves to this one',
        body: addMySenderBodySchema,
        response: { 200: mySenderSchema, ...errors },
      },
    },
    async (request) => service.add(signedIn(request).user, request.body, userActorOf(request)),
  );

  app.delete(
    MY_SENDERS_API.entry,
    {
      ...common,
      config: writes,
      schema: {
        tags,
        summary: 'Remove one of your own allowed or blocked senders',
        params: mySenderIdParamsSchema,
        response: { 200: deleteMySenderResultSchema, ...errors },
      },
    },
    async (request) => {
      await service.remove(signedIn(request).user, request.params.id, userActorOf(request));
      return { deleted: true as const };
    },
  );
};
