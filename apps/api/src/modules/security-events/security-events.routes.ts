import { errorResponseSchema } from '@moat/contracts/errors';
import {
  SECURITY_EVENTS_API,
  type SecurityEventDetail,
  type SecurityEventList,
  securityEventDetailSchema,
  securityEventListSchema,
  securityEventParamsSchema,
  securityEventsQuerySchema,
} from '@moat/contracts/security-events';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sendCsv } from '../../lib/csv.ts';
import { signedIn } from '../../plugins/app/session.ts';
import type { Reader } from './security-events.service.ts';

/** An admin reads the tenant's events; a plain user those of their own mail (SPEC §2.4 shows Events to both). */
function readerOf(request: FastifyRequest): Reader {
  const { user } = signedIn(request);
  return { tenantId: user.tenantId, ownRecipient: user.role === 'admin' ? null : user.email };
}

/** Events (/security-events): what the engines found, what the policy did, what happened since. */
export const securityEventsRoutes: FastifyPluginAsyncZod = async (app) => {
  const errors = { 400: errorResponseSchema, 401: errorResponseSchema, 403: errorResponseSchema };
  app.get(
    SECURITY_EVENTS_API.events,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['security-events'],
        summary: "The tenant's security events (a plain user: those of their own mail), filtered and sorted",
        querystring: securityEventsQuerySchema,
        response: { 200: securityEventListSchema, ...errors },
      },
    },
    async (request): Promise<SecurityEventList> =>
      app.services.securityEvents.list(readerOf(request), request.query),
  );

  app.get(
    SECURITY_EVENTS_API.export,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['security-events'],
        summary: 'The same list as a CSV file (its filters and sort, at most 10,000 rows)',
        querystring: securityEventsQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) => {
      const csv = await app.services.securityEvents.exportCsv(readerOf(request), request.query);
      return sendCsv(reply, 'security-events', csv, app.clock.now());
    },
  );

  app.get(
    SECURITY_EVENTS_API.event,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['security-events'],
        summary: "One event: the engines' findings, the policy decision and the message's history",
        params: securityEventParamsSchema,
        response: { 200: securityEventDetailSchema, 404: errorResponseSchema, ...errors },
      },
    },
    async (request): Promise<SecurityEventDetail> =>
      app.services.securityEvents.detail(readerOf(request), request.params.id),
  );
};
