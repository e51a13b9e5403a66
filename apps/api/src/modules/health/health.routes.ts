import { healthSchema, readinessSchema } from '@moat/contracts/public-config';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/healthz',
    {
      schema: { tags: ['health'], summary: 'Liveness: the process answers', response: { 200: healthSchema } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: the database is reachable and every migration is applied',
        response: { 200: readinessSchema, 503: readinessSchema },
      },
    },
    async (_request, reply) => {
      let database: 'ok' | 'unreachable' = 'ok';
      let migrations: 'ok' | 'pending' = 'pending';
      try {
        await app.database.ping();
        migrations = (await app.database.migrationsApplied()) ? 'ok' : 'pending';
      } catch {
        database = 'unreachable';
      }
      const ready = database === 'ok' && migrations === 'ok';
      return reply
        .code(ready ? 200 : 503)
        .send({ status: ready ? 'ready' : 'not_ready', checks: { database, migrations } });
    },
  );
};
