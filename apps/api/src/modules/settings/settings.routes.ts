import { errorResponseSchema } from '@moat/contracts/errors';
import { SETTINGS_API, settingsSchema, settingsUpdateSchema } from '@moat/contracts/settings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/** Configuration → Settings (SPEC §2.4, §6: admins change; a demo deployment's users look). */
export const settingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.settings;
  const tags = ['settings'];

  app.get(
    SETTINGS_API.settings,
    {
      preHandler: app.requireAdminOrDemo,
      schema: {
        tags,
        summary:
          "The organisation's settings: sign-in policy, sessions, retention, digest, mail sender, alerts",
        response: { 200: settingsSchema, ...errors },
      },
    },
    async (request) => service.get(tenantActorOf(request).tenantId),
  );

  app.put(
    SETTINGS_API.settings,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary:
          'Change some settings (each within its safe bounds); audited with before and after, effective at once',
        body: settingsUpdateSchema,
        response: { 200: settingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.update(tenantId, request.body, actor);
    },
  );
};
