import {
  ADD_ONS_ROUTES,
  addOnIdParamsSchema,
  addOnRequestBodySchema,
  addOnsSchema,
} from '@moat/contracts/add-ons';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn, tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 409: errorResponseSchema };

/** The Add-ons Store (SPEC §6: admins; a demo deployment's users may look). */
export const addOnsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.addOns;
  const tags = ['add-ons'];

  app.get(
    ADD_ONS_ROUTES.list,
    {
      preHandler: app.requireAdminOrDemo,
      schema: {
        tags,
        summary: 'Each add-on: whether this edition ships it, whether it is on, the last request for it',
        response: { 200: addOnsSchema, ...errors },
      },
    },
    async (request) => service.list(tenantActorOf(request).tenantId),
  );

  app.post(
    ADD_ONS_ROUTES.activate,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: 'Turn on an add-on this edition ships (409 for one it does not); audited',
        params: addOnIdParamsSchema,
        response: { 200: addOnsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.activate(tenantId, request.params.id, actor);
    },
  );

  app.post(
    ADD_ONS_ROUTES.request,
    {
      preHandler: app.requireAdmin,
      config: { rateLimit: { max: 10, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: "Ask the provider for an add-on (once a day each); emailed to the provider's support",
        params: addOnIdParamsSchema,
        body: addOnRequestBodySchema,
        response: { 200: addOnsSchema, ...errors, 429: errorResponseSchema },
      },
    },
    async (request) => {
      const { actor } = tenantActorOf(request);
      const { user } = signedIn(request);
      const tenant = await app.services.deployment.tenant(user.tenantId);
      return service.request(tenant, user, request.params.id, request.body.message, actor);
    },
  );
};
