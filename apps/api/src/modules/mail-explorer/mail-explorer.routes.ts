import { errorResponseSchema } from '@moat/contracts/errors';
import {
  MAIL_EXPLORER_API,
  type MailExplorerList,
  mailExplorerListSchema,
  mailExplorerQuerySchema,
} from '@moat/contracts/mail-explorer';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';

/** Mail Explorer: every message the gateway processed for the tenant, newest first (admins). */
export const mailExplorerRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    MAIL_EXPLORER_API.messages,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['mail-explorer'],
        summary: 'Every message the gateway processed for the tenant: verdict, action, authentication',
        querystring: mailExplorerQuerySchema,
        response: { 200: mailExplorerListSchema, 400: errorResponseSchema, 403: errorResponseSchema },
      },
    },
    async (request): Promise<MailExplorerList> =>
      app.services.mailExplorer.list(signedIn(request).user.tenantId, request.query),
  );
};
