import {
  CONSOLE_API,
  environmentComponentsSchema,
  incidentsResponseSchema,
  versionResponseSchema,
} from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

/** Version, environment components and open service incidents (SPEC §3, §4 "Version check"). */
export const serviceStatusRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.serviceStatus;
  const tags = ['console'];
  const common = { preHandler: app.requireUser };
  const errors = { 403: errorResponseSchema };

  app.get(
    CONSOLE_API.version,
    {
      ...common,
      schema: {
        tags,
        summary: 'The served web build (ui2_version) and the server version',
        response: { 200: versionResponseSchema, ...errors },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.version();
    },
  );
  app.get(
    CONSOLE_API.environmentComponents,
    {
      ...common,
      schema: {
        tags,
        summary: 'Services and detection engines with their versions',
        response: { 200: environmentComponentsSchema, ...errors },
      },
    },
    async () => service.environmentComponents(),
  );
  app.get(
    CONSOLE_API.incidents,
    {
      ...common,
      schema: {
        tags,
        summary: 'Open service-status incidents',
        response: { 200: incidentsResponseSchema, ...errors },
      },
    },
    async () => service.openIncidents(),
  );
};
