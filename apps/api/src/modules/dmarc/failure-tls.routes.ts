import {
  DMARC_API,
  failureReportsQuerySchema,
  failureReportsResponseSchema,
  tlsReportsQuerySchema,
  tlsReportsResponseSchema,
} from '@moat/contracts/dmarc';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/** Failure reports (RFC 6591) and SMTP TLS reports (RFC 8460) taken in (issue 37): admins only. */
export const failureTlsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.dmarcFailureTls;
  const tags = ['dmarc'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    DMARC_API.failureReports,
    {
      ...common,
      schema: {
        tags,
        summary:
          'The DMARC failure reports received over the last days, newest first; redacted (addresses masked, no message body)',
        querystring: failureReportsQuerySchema,
        response: { 200: failureReportsResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.failureReports({ tenantId: tenantActorOf(request).tenantId, ...request.query }),
  );

  app.get(
    DMARC_API.tlsReports,
    {
      ...common,
      schema: {
        tags,
        summary:
          'The SMTP TLS reports whose period began in the last days: per domain the sessions that succeeded and failed, and each report with its policies and failure details',
        querystring: tlsReportsQuerySchema,
        response: { 200: tlsReportsResponseSchema, ...errors },
      },
    },
    async (request) => service.tlsReports({ tenantId: tenantActorOf(request).tenantId, ...request.query }),
  );
};
