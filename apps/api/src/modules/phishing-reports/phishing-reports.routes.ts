import { errorResponseSchema } from '@moat/contracts/errors';
import {
  alertBadgeSchema,
  alertSettingsSchema,
  confirmReportBodySchema,
  modifiedAttachmentsListSchema,
  modifiedAttachmentsQuerySchema,
  reportDecisionSchema,
  reportIdParamsSchema,
  reportsListSchema,
  reportsQuerySchema,
  summaryQuerySchema,
  summarySchema,
  USER_INTERACTION_API,
} from '@moat/contracts/phishing-reports';
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

/** Phishing Reports, the User Interaction dashboard, Modified Attachments and alerts (admins). */
export const userInteractionRoutes: FastifyPluginAsyncZod = async (app) => {
  const { phishingReports, userInteraction, alerts } = app.services;
  const common = { preHandler: app.requireAdmin };
  const tags = ['user-interaction'];

  app.get(
    USER_INTERACTION_API.reports,
    {
      ...common,
      schema: {
        tags,
        summary: 'What recipients reported from the action page, and what became of it',
        querystring: reportsQuerySchema,
        response: { 200: reportsListSchema, ...errors },
      },
    },
    async (request) => phishingReports.list(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    USER_INTERACTION_API.reportsExport,
    {
      ...common,
      schema: {
        tags,
        summary: 'The same list as a CSV file (its filters and sort, at most 10,000 rows)',
        querystring: reportsQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) =>
      sendCsv(
        reply,
        'phishing-reports',
        await phishingReports.exportCsv(tenantActorOf(request).tenantId, request.query),
        app.clock.now(),
      ),
  );

  app.post(
    USER_INTERACTION_API.confirm,
    {
      ...common,
      schema: {
        tags,
        summary:
          'Confirm a report: every copy of the message is hidden, the sender blocked if asked, the reporters told',
        params: reportIdParamsSchema,
        body: confirmReportBodySchema,
        response: { 200: reportDecisionSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return phishingReports.confirm(tenantId, request.params.id, actor, request.body.block_sender);
    },
  );

  app.post(
    USER_INTERACTION_API.dismiss,
    {
      ...common,
      schema: {
        tags,
        summary: 'Dismiss a report: the message is marked safe and the reporters told',
        params: reportIdParamsSchema,
        response: { 200: reportDecisionSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return phishingReports.dismiss(tenantId, request.params.id, actor);
    },
  );

  app.get(
    USER_INTERACTION_API.summary,
    {
      ...common,
      schema: {
        tags,
        summary: 'Restore requests and reports per day, what waits, and the time to a decision',
        querystring: summaryQuerySchema,
        response: { 200: summarySchema, ...errors },
      },
    },
    async (request) => userInteraction.summary(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    USER_INTERACTION_API.modifiedAttachments,
    {
      ...common,
      schema: {
        tags,
        summary: 'Every attachment removed from a delivered message, with its message and restore state',
        querystring: modifiedAttachmentsQuerySchema,
        response: { 200: modifiedAttachmentsListSchema, ...errors },
      },
    },
    async (request) => userInteraction.modifiedAttachments(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    USER_INTERACTION_API.modifiedAttachmentsExport,
    {
      ...common,
      schema: {
        tags,
        summary: 'The same list as a CSV file (its filters and sort, at most 10,000 rows)',
        querystring: modifiedAttachmentsQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) =>
      sendCsv(
        reply,
        'modified-attachments',
        await userInteraction.modifiedAttachmentsCsv(tenantActorOf(request).tenantId, request.query),
        app.clock.now(),
      ),
  );

  app.get(
    USER_INTERACTION_API.alertSettings,
    {
      ...common,
      schema: {
        tags,
        summary: 'Which alerts the admins get by email',
        response: { 200: alertSettingsSchema, ...errors },
      },
    },
    async (request) => alerts.settingsOf(tenantActorOf(request).tenantId),
  );

  app.put(
    USER_INTERACTION_API.alertSettings,
    {
      ...common,
      schema: {
        tags,
        summary: 'Choose which alerts the admins get by email',
        body: alertSettingsSchema,
        response: { 200: alertSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return alerts.saveSettings(tenantId, request.body, actor);
    },
  );

  app.get(
    USER_INTERACTION_API.alertBadge,
    {
      ...common,
      schema: {
        tags,
        summary: 'What waits for the admins: open reports and restore requests',
        response: { 200: alertBadgeSchema, ...errors },
      },
    },
    async (request) => alerts.badge(tenantActorOf(request).tenantId),
  );
};
