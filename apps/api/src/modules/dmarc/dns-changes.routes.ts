import {
  DMARC_API,
  dmarcAlertSettingsSchema,
  dmarcAlertsResponseSchema,
  dnsChangesQuerySchema,
  dnsChangesResponseSchema,
  dnsCheckResultSchema,
} from '@moat/contracts/dmarc';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 429: errorResponseSchema };

/** DNS Change-Log and the DMARC alerts (issue 37): admins only. */
export const dnsChangesRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.dnsChanges;
  const tags = ['dmarc'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    DMARC_API.dnsChanges,
    {
      ...common,
      schema: {
        tags,
        summary:
          "The domains' SPF, DMARC, DKIM, MX, MTA-STS and TLS-RPT records as last polled, and the log of their changes",
        querystring: dnsChangesQuerySchema,
        response: { 200: dnsChangesResponseSchema, ...errors },
      },
    },
    async (request) => service.view(tenantActorOf(request).tenantId, request.query),
  );

  app.post(
    DMARC_API.dnsCheck,
    {
      ...common,
      // Each call asks DNS about every domain's records; the service also waits 30 s between polls.
      config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: "Poll the domains' records now; refused (429) within 30 seconds of the latest poll",
        response: { 200: dnsCheckResultSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.checkNow(tenantId, actor);
    },
  );

  app.get(
    DMARC_API.alerts,
    {
      ...common,
      schema: {
        tags,
        summary:
          'The DMARC alerts of the last 90 days: a record changed, a new failing source, a pass-rate drop',
        response: { 200: dmarcAlertsResponseSchema, ...errors },
      },
    },
    async (request) => service.alerts(tenantActorOf(request).tenantId),
  );

  app.put(
    DMARC_API.alertSettings,
    {
      ...common,
      schema: {
        tags,
        summary: 'Whether the DMARC alerts are emailed to the admins',
        body: dmarcAlertSettingsSchema,
        response: { 200: dmarcAlertSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.saveAlertSettings(tenantId, request.body.email, actor);
    },
  );
};
