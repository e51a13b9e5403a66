import { errorResponseSchema } from '@moat/contracts/errors';
import {
  bulkRetractBodySchema,
  connectionBodySchema,
  connectionSchema,
  connectionTestBodySchema,
  connectionTestResultSchema,
  deliveredSearchSchema,
  previewSchema,
  RETRACTION_API,
  retractionDetailSchema,
  retractionIdParamsSchema,
  retractionListSchema,
  retractionStartedSchema,
  retractMessageBodySchema,
} from '@moat/contracts/retraction';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/** Retraction of delivered mail from the tenant's mailboxes (issue 36 §2): admins only. */
export const retractionRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.retraction;
  const tags = ['retraction'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    RETRACTION_API.connection,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's IMAP mailbox connection (never its password)",
        response: { 200: connectionSchema, ...errors },
      },
    },
    async (request) => service.connection(tenantActorOf(request).tenantId),
  );

  app.put(
    RETRACTION_API.connection,
    {
      ...common,
      schema: {
        tags,
        summary: 'Connect the mail server: host, port, TLS, master user and password (sealed), on or off',
        body: connectionBodySchema,
        response: { 200: connectionSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.saveConnection(tenantId, request.body, actor);
    },
  );

  app.post(
    RETRACTION_API.connectionTest,
    {
      ...common,
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'Log in as one mailbox through the master user and say which step failed, if any',
        body: connectionTestBodySchema,
        response: { 200: connectionTestResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.testConnection(tenantId, request.body?.mailbox, actor);
    },
  );

  app.get(
    RETRACTION_API.retractions,
    {
      ...common,
      schema: {
        tags,
        summary: 'The latest retractions, newest first',
        response: { 200: retractionListSchema, ...errors },
      },
    },
    async (request) => service.list(tenantActorOf(request).tenantId),
  );

  app.get(
    RETRACTION_API.retraction,
    {
      ...common,
      schema: {
        tags,
        summary: 'One retraction, with what was found where for each delivered copy',
        params: retractionIdParamsSchema,
        response: { 200: retractionDetailSchema, ...errors },
      },
    },
    async (request) => service.get(tenantActorOf(request).tenantId, request.params.id),
  );

  app.post(
    RETRACTION_API.retractions,
    {
      ...common,
      schema: {
        tags,
        summary: 'Mark a delivered message bad: every delivered copy of it is retracted (in the background)',
        body: retractMessageBodySchema,
        response: { 202: retractionStartedSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = tenantActorOf(request);
      reply.code(202);
      return service.retractMessage(tenantId, request.body, actor);
    },
  );

  app.post(
    RETRACTION_API.preview,
    {
      ...common,
      schema: {
        tags,
        summary: 'What a bulk retraction of this search would pull back: the count and the first copies',
        body: deliveredSearchSchema,
        response: { 200: previewSchema, ...errors },
      },
    },
    async (request) => service.preview(tenantActorOf(request).tenantId, request.body),
  );

  app.post(
    RETRACTION_API.bulk,
    {
      ...common,
      schema: {
        tags,
        summary: 'Retract every delivered copy a search matches (the count must be the preview’s)',
        body: bulkRetractBodySchema,
        response: { 202: retractionStartedSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = tenantActorOf(request);
      reply.code(202);
      return service.bulk(tenantId, request.body, actor);
    },
  );
};
