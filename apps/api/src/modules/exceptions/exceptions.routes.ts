import { errorResponseSchema } from '@moat/contracts/errors';
import {
  createExceptionBodySchema,
  deleteExceptionResultSchema,
  EXCEPTIONS_API,
  exceptionEntrySchema,
  exceptionIdParamsSchema,
  exceptionListSchema,
  exceptionQuerySchema,
  importExceptionsBodySchema,
  importExceptionsResultSchema,
} from '@moat/contracts/exceptions';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sendCsv } from '../../lib/csv.ts';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/** Security Settings → Exceptions (SPEC §2.4): allow and block entries, admins only. */
export const exceptionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.exceptions;
  const tags = ['exceptions'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    EXCEPTIONS_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's allow and block entries (expired ones only when asked)",
        querystring: exceptionQuerySchema,
        response: { 200: exceptionListSchema, ...errors },
      },
    },
    async (request) => service.list(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    EXCEPTIONS_API.export,
    {
      ...common,
      schema: {
        tags,
        summary: 'The same list as a CSV file (its filters and sort); the import reads this format',
        querystring: exceptionQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) => {
      const csv = await service.exportCsv(tenantActorOf(request).tenantId, request.query);
      return sendCsv(reply, 'exceptions', csv, app.clock.now());
    },
  );

  app.post(
    EXCEPTIONS_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary: 'Add an allow or block entry; the gateway applies it to the next message',
        body: createExceptionBodySchema,
        response: { 200: exceptionEntrySchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.create(tenantId, request.body, actor);
    },
  );

  app.post(
    EXCEPTIONS_API.import,
    {
      ...common,
      bodyLimit: 3 * 1024 * 1024,
      schema: {
        tags,
        summary: 'Import entries from CSV: every row is checked; nothing is imported unless all are good',
        body: importExceptionsBodySchema,
        response: { 200: importExceptionsResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.importCsv(tenantId, request.body.csv, actor);
    },
  );

  app.delete(
    EXCEPTIONS_API.entry,
    {
      ...common,
      schema: {
        tags,
        summary: 'Delete an entry',
        params: exceptionIdParamsSchema,
        response: { 200: deleteExceptionResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await service.remove(tenantId, request.params.id, actor);
      return { deleted: true as const };
    },
  );
};
