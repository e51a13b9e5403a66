import { errorResponseSchema } from '@moat/contracts/errors';
import {
  MESSAGE_TRACE_API,
  type MessageTrace,
  messageTraceSchema,
  traceParamsSchema,
} from '@moat/contracts/message-trace';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';

/** The message trace (issue 11): one message's timeline, by Mail Explorer row or by held message (admins). */
export const messageTraceRoutes: FastifyPluginAsyncZod = async (app) => {
  const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 404: errorResponseSchema };
  app.get(
    MESSAGE_TRACE_API.byMailLog,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['mail-explorer'],
        summary:
          'The timeline of a Mail Explorer message: session, authentication, engines, decision, delivery',
        params: traceParamsSchema,
        response: { 200: messageTraceSchema, ...errors },
      },
    },
    async (request): Promise<MessageTrace> =>
      app.services.messageTrace.byMailLog(signedIn(request).user.tenantId, request.params.id),
  );

  app.get(
    MESSAGE_TRACE_API.byHeld,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['mail-explorer'],
        summary:
          'The timeline of a held message: its Mail Explorer trace, or its holds, requests and releases',
        params: traceParamsSchema,
        response: { 200: messageTraceSchema, ...errors },
      },
    },
    async (request): Promise<MessageTrace> =>
      app.services.messageTrace.byHeld(signedIn(request).user.tenantId, request.params.id),
  );
};
