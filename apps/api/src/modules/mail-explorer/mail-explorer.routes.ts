import { errorResponseSchema } from '@moat/contracts/errors';
import {
  MAIL_EXPLORER_API,
  type MailExplorerList,
  mailExplorerListSchema,
  mailExplorerQuerySchema,
} from '@moat/contracts/mail-explorer';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sendCsv } from '../../lib/csv.ts';
import { signedIn } from '../../plugins/app/session.ts';

/** Mail Explorer: every message the gateway processed for the tenant (admins). */
export const mailExplorerRoutes: FastifyPluginAsyncZod = async (app) => {
  const errors = { 400: errorResponseSchema, 403: errorResponseSchema };
  app.get(
    MAIL_EXPLORER_API.messages,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['mail-explorer'],
        summary: 'Every message the gateway processed for the tenant: verdict, action, authentication',
        querystring: mailExplorerQuerySchema,
        response: { 200: mailExplorerListSchema, ...errors },
      },
    },
    async (request): Promise<MailExplorerList> =>
      app.services.mailExplorer.list(signedIn(request).user.tenantId, request.query),
  );

  app.get(
    MAIL_EXPLORER_API.export,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['mail-explorer'],
        summary: 'The same list as a CSV file (its filters and sort, at most 10,000 rows)',
        querystring: mailExplorerQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) => {
      const csv = await app.services.mailExplorer.exportCsv(signedIn(request).user.tenantId, request.query);
      return sendCsv(reply, 'mail-explorer', csv, app.clock.now());
    },
  );
};
