import { errorResponseSchema } from '@moat/contracts/errors';
import {
  blockSenderBodySchema,
  blockSenderResponseSchema,
  bulkBodySchema,
  bulkResultSchema,
  declineBodySchema,
  deleteResponseSchema,
  feedbackBodySchema,
  feedbackResponseSchema,
  idParamsSchema,
  listQuerySchema,
  messageBulkBodySchema,
  messageBulkResultSchema,
  messageDetailSchema,
  messageListSchema,
  QUARANTINE_ADMIN_ROUTES,
  releaseBodySchema,
  releaseResponseSchema,
  restoreDecisionResponseSchema,
  restoreRequestListSchema,
  retentionSchema,
  retryResponseSchema,
} from '@moat/contracts/quarantine-admin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  405: errorResponseSchema,
  409: errorResponseSchema,
};

export const quarantineAdminRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.quarantineAdmin;
  const tags = ['quarantine'];
  // Only admins act on held mail; SPEC §8's 'Insufficient privileges' answers anyone else.
  const common = { preHandler: app.requireAdmin };

  app.get(
    QUARANTINE_ADMIN_ROUTES.restoreRequests,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's restore requests, newest first",
        querystring: listQuerySchema,
        response: { 200: restoreRequestListSchema, ...errors },
      },
    },
    async (request) => service.listRequests(tenantActorOf(request).tenantId, request.query),
  );

  const decisionRoutes = {
    approve: QUARANTINE_ADMIN_ROUTES.restoreRequestApprove,
    decline: QUARANTINE_ADMIN_ROUTES.restoreRequestDecline,
  } as const;
  for (const action of ['approve', 'decline'] as const) {
    app.post(
      decisionRoutes[action],
      {
        ...common,
        schema: {
          tags,
          summary:
            action === 'approve'
              ? 'Approve: release the message to its recipient'
              : 'Decline with a reason; the recipient is told by email',
          params: idParamsSchema,
          ...(action === 'decline' ? { body: declineBodySchema } : {}),
          response: { 200: restoreDecisionResponseSchema, ...errors },
        },
      },
      async (request) => {
        const { tenantId, actor } = tenantActorOf(request);
        const { id } = request.params as { id: string };
        const status =
          action === 'approve'
            ? await service.approve(tenantId, id, actor)
            : await service.decline(tenantId, id, (request.body as { reason: string }).reason, actor);
        return { status };
      },
    );
  }

  app.post(
    QUARANTINE_ADMIN_ROUTES.restoreRequestsBulk,
    {
      ...common,
      schema: {
        tags,
        summary: 'Approve or decline several requests',
        body: bulkBodySchema,
        response: { 200: bulkResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      const results = [];
      for (const id of request.body.ids) {
        try {
          const status =
            request.body.action === 'approve'
              ? await service.approve(tenantId, id, actor)
              : await service.decline(tenantId, id, request.body.reason ?? '', actor);
          results.push({ id, status, error: null });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          results.push({ id, status: null, error: error.message });
        }
      }
      return { results };
    },
  );

  app.get(
    QUARANTINE_ADMIN_ROUTES.messages,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's held messages",
        querystring: listQuerySchema,
        response: { 200: messageListSchema, ...errors },
      },
    },
    async (request) => service.listMessages(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    QUARANTINE_ADMIN_ROUTES.message,
    {
      ...common,
      schema: {
        tags,
        summary: 'Headers and a safe text rendering of a held message',
        params: idParamsSchema,
        response: { 200: messageDetailSchema, ...errors },
      },
    },
    async (request) => service.message(tenantActorOf(request).tenantId, request.params.id),
  );

  app.post(
    QUARANTINE_ADMIN_ROUTES.messageRelease,
    {
      ...common,
      schema: {
        tags,
        summary:
          "Release a held message (once) to its recipient or to an address of the tenant's domains; malware only with confirm_malware",
        params: idParamsSchema,
        body: z.nullish(releaseBodySchema),
        response: { 200: releaseResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await service.release(tenantId, request.params.id, actor, request.body ?? {});
      return { status: 'restored' as const };
    },
  );

  app.post(
    QUARANTINE_ADMIN_ROUTES.messageRetry,
    {
      ...common,
      schema: {
        tags,
        summary: 'Process again a message the gateway could not process (held unscanned)',
        params: idParamsSchema,
        response: { 200: retryResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await service.retry(tenantId, request.params.id, actor);
      return { status: 'requeued' as const };
    },
  );

  app.delete(
    QUARANTINE_ADMIN_ROUTES.message,
    {
      ...common,
      schema: {
        tags,
        summary: 'Delete a held message: nobody can restore it any more',
        params: idParamsSchema,
        response: { 200: deleteResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      await service.remove(tenantId, request.params.id, actor);
      return { status: 'deleted' as const };
    },
  );

  app.post(
    QUARANTINE_ADMIN_ROUTES.messagesBulk,
    {
      ...common,
      schema: {
        tags,
        summary: 'Release or delete up to 200 held messages; each one is reported',
        body: messageBulkBodySchema,
        response: { 200: messageBulkResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.bulk(tenantId, request.body, actor);
    },
  );

  app.get(
    QUARANTINE_ADMIN_ROUTES.messageEml,
    {
      ...common,
      schema: {
        tags,
        summary: 'Download the original message (.eml), audited',
        params: idParamsSchema,
        response: { 200: z.any().describe('message/rfc822'), ...errors },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = tenantActorOf(request);
      const { raw, filename } = await service.eml(tenantId, request.params.id, actor);
      return reply
        .header('content-type', 'message/rfc822')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .send(raw);
    },
  );

  app.post(
    QUARANTINE_ADMIN_ROUTES.messageBlockSender,
    {
      ...common,
      schema: {
        tags,
        summary: "Block the message's sender address or domain (the tenant's block list)",
        params: idParamsSchema,
        body: blockSenderBodySchema,
        response: { 200: blockSenderResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.blockSender(tenantId, request.params.id, request.body.scope, actor);
    },
  );

  app.post(
    QUARANTINE_ADMIN_ROUTES.messageFeedback,
    {
      ...common,
      schema: {
        tags,
        summary: "Record 'is spam' or 'not spam' on the message",
        params: idParamsSchema,
        body: feedbackBodySchema,
        response: { 200: feedbackResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.feedback(tenantId, request.params.id, request.body.feedback, actor);
    },
  );

  app.get(
    QUARANTINE_ADMIN_ROUTES.retention,
    {
      ...common,
      schema: {
        tags,
        summary: 'Days held mail is kept before it is purged',
        response: { 200: retentionSchema, ...errors },
      },
    },
    async (request) => service.retention(tenantActorOf(request).tenantId),
  );

  app.put(
    QUARANTINE_ADMIN_ROUTES.retention,
    {
      ...common,
      schema: {
        tags,
        summary: 'Set how many days held mail is kept (1 to 3650)',
        body: retentionSchema,
        response: { 200: retentionSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.setRetention(tenantId, request.body.days, actor);
    },
  );
};
