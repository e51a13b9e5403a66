import { AUDIT_API, auditListSchema, auditQuerySchema } from '@moat/contracts/audit';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { sendCsv } from '../../lib/csv.ts';
import { signedIn } from '../../plugins/app/session.ts';
import type { AuditReader } from './audit.service.ts';

function readerOf(request: FastifyRequest): AuditReader {
  const { user } = signedIn(request);
  return { tenantId: user.tenantId, userId: user.id, role: user.role };
}

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/**
 * System Settings → System Logs (SPEC §2.4: shown to everyone): an admin reads the tenant's
 * whole audit log, anyone else only their own actions. Read-only.
 */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.auditLog;
  const tags = ['audit'];
  const common = { preHandler: app.requireUser };

  app.get(
    AUDIT_API.entries,
    {
      ...common,
      schema: {
        tags,
        summary:
          "The audit log: who did what to what, when and from where (an admin: the tenant's; others: their own)",
        querystring: auditQuerySchema,
        response: { 200: auditListSchema, ...errors },
      },
    },
    async (request) => service.list(readerOf(request), request.query),
  );

  app.get(
    AUDIT_API.export,
    {
      ...common,
      schema: {
        tags,
        summary: 'The same entries as a CSV file (its filters and sort)',
        querystring: auditQuerySchema,
        response: { 200: z.string().describe('text/csv'), ...errors },
      },
    },
    async (request, reply) => {
      const csv = await service.exportCsv(readerOf(request), request.query);
      return sendCsv(reply, 'audit-log', csv, app.clock.now());
    },
  );
};
