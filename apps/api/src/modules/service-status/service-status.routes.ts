import {
  CONSOLE_API,
  environmentComponentsSchema,
  incidentsResponseSchema,
  serviceStatusSchema,
  systemTasksSchema,
  versionResponseSchema,
} from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { signedIn } from '../../plugins/app/session.ts';

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

  app.get(
    CONSOLE_API.serviceStatus,
    {
      ...common,
      schema: {
        tags,
        summary:
          'Service Status: components with their state, open incidents, queue depths, the relay (its last error to admins)',
        response: { 200: serviceStatusSchema, ...errors },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      return service.status(user.tenantId, user.role === 'admin');
    },
  );
  app.get(
    CONSOLE_API.systemTasks,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary:
          'System Tasks (admins, enableSystemTask): each background task with its latest run, and the queues',
        response: { 200: systemTasksSchema, ...errors },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      const flags = await app.services.deployment.features(
        await app.services.deployment.tenant(user.tenantId),
      );
      if (!flags.enableSystemTask)
        throw new AppError('forbidden', 'System Tasks is not enabled for your organisation');
      return service.systemTasks(user.tenantId);
    },
  );
};
