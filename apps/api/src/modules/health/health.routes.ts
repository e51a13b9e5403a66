import { API } from '@moat/contracts/api-paths';
import { healthSchema, readinessSchema } from '@moat/contracts/public-config';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';

export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    API.health,
    {
      schema: { tags: ['health'], summary: 'Liveness: the process answers', response: { 200: healthSchema } },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    API.ready,
    {
      schema: {
        tags: ['health'],
        summary:
          "Readiness: the database is reachable, every migration is applied, and this node's key is the cluster's",
        response: { 200: readinessSchema, 503: readinessSchema },
      },
    },
    async (_request, reply) => {
      let database: 'ok' | 'unreachable' = 'ok';
      let migrations: 'ok' | 'pending' = 'pending';
      let secretKey: 'ok' | 'mismatch' | 'unknown' = 'unknown';
      try {
        await app.database.ping();
        migrations = (await app.database.migrationsApplied()) ? 'ok' : 'pending';
        // 'unset': no node has recorded a key yet (a server records it at start-up).
        secretKey = (await app.services.cluster.keyState()) === 'mismatch' ? 'mismatch' : 'ok';
      } catch {
        database = 'unreachable';
      }
      const ready = database === 'ok' && migrations === 'ok' && secretKey === 'ok';
      return reply.code(ready ? 200 : 503).send({
        status: ready ? 'ready' : 'not_ready',
        checks: { database, migrations, secret_key: secretKey },
      });
    },
  );
};
