import { errorResponseSchema } from '@moat/contracts/errors';
import {
  quarantineSettingsInputSchema,
  quarantineSettingsSchema,
  reportSettingsInputSchema,
  reportSettingsSchema,
  USER_INTERACTION_SETTINGS_API,
} from '@moat/contracts/user-interaction-settings';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/**
 * Settings → User Interaction (admins: what every recipient of held mail may do and is told is an
 * administrator's decision).
 */
export const userInteractionSettingsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.userInteractionSettings;
  const tags = ['user-interaction'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    USER_INTERACTION_SETTINGS_API.quarantine,
    {
      ...common,
      schema: {
        tags,
        summary: 'Who decides restore requests, what recipients may do per verdict, their notices and digest',
        response: { 200: quarantineSettingsSchema, ...errors },
      },
    },
    async (request) => service.quarantine(tenantActorOf(request).tenantId),
  );

  app.put(
    USER_INTERACTION_SETTINGS_API.quarantine,
    {
      ...common,
      schema: {
        tags,
        summary: 'Save the quarantine settings at once; audited, in effect for the next message',
        body: quarantineSettingsInputSchema,
        response: { 200: quarantineSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.saveQuarantine(tenantId, request.body, actor);
    },
  );

  app.get(
    USER_INTERACTION_SETTINGS_API.reports,
    {
      ...common,
      schema: {
        tags,
        summary: 'What the report buttons do, what a reporter is told, what a confirmation does',
        response: { 200: reportSettingsSchema, ...errors },
      },
    },
    async (request) => service.reports(tenantActorOf(request).tenantId),
  );

  app.put(
    USER_INTERACTION_SETTINGS_API.reports,
    {
      ...common,
      schema: {
        tags,
        summary: 'Save the phishing report settings at once; audited, in effect for the next report',
        body: reportSettingsInputSchema,
        response: { 200: reportSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.saveReports(tenantId, request.body, actor);
    },
  );
};
