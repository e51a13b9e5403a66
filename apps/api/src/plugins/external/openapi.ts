import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** OpenAPI 3.1 generated from the routes' zod schemas: UI at /api/docs, JSON at /api/docs/json. */
export const openApiPlugin = fp(async (app: FastifyInstance, opts: { version: string }) => {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Moat API',
        description: 'Email security portal: public recipient pages, sign-in, admin console.',
        version: opts.version,
      },
      tags: [
        { name: 'health', description: 'Liveness and readiness' },
        { name: 'public', description: 'Calls that need no sign-in' },
        { name: 'session', description: 'The signed-in user' },
      ],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/api/docs',
    // The docs page gets the app's own strict policy: scripts from this origin only, nothing
    // from other hosts (no online validator), inline styles for the UI's layout.
    staticCSP: true,
    transformStaticCSP: () =>
      "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; connect-src 'self'",
    uiConfig: { docExpansion: 'list', deepLinking: false, validatorUrl: null },
  });
});
