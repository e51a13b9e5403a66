import { errorResponseSchema } from '@moat/contracts/errors';
import {
  deleteVipResultSchema,
  VIPS_API,
  vipBodySchema,
  vipIdParamsSchema,
  vipListSchema,
  vipSchema,
} from '@moat/contracts/vips';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/** Protected people (VIPs) of the Anti-Phishing engine: admins only. */
export const vipsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.vips;
  const tags = ['vips'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    VIPS_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's protected people (VIPs), by name",
        response: { 200: vipListSchema, ...errors },
      },
    },
    async (request) => service.list(tenantActorOf(request).tenantId),
  );

  app.post(
    VIPS_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary: 'Add a protected person: mail from outside in their name is held as impersonation',
        body: vipBodySchema,
        response: { 200: vipSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.create(tenantId, request.body, actor);
    },
  );

  app.put(
    VIPS_API.entry,
    {
      ...common,
      schema: {
        tags,
        summary: "Change a protected person's name and addresses",
        params: vipIdParamsSchema,
        body: vipBodySchema,
        response: { 200: vipSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.update(tenantId, request.params.id, request.body, actor);
    },
  );

  app.delete(
    VIPS_API.entry,
    {
      ...common,
      schema: {
        tags,
        summary: 'Remove a protected person',
        params: vipIdParamsSchema,
        response: { 200: deleteVipResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await service.remove(tenantId, request.params.id, actor);
      return { deleted: true as const };
    },
  );
};
