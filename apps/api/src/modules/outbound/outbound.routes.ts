import { errorResponseSchema } from '@moat/contracts/errors';
import {
  OUTBOUND_API,
  smtpCredentialBodySchema,
  smtpCredentialCreatedSchema,
  smtpCredentialListSchema,
  smtpCredentialParamsSchema,
  smtpCredentialSchema,
} from '@moat/contracts/outbound';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
};

/** Outbound submission credentials (issue 38), in Settings → Mail flow: admins only. */
export const outboundRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.outbound.credentials;
  const tags = ['outbound'];
  const common = { preHandler: app.requireAdmin };
  const { config } = app;

  app.get(
    OUTBOUND_API.credentials,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's SMTP submission credentials (never their passwords) and where to submit",
        response: { 200: smtpCredentialListSchema, ...errors },
      },
    },
    async (request) => ({
      credentials: await service.list(tenantActorOf(request).tenantId),
      endpoint: {
        port: config.submissionPort,
        host: config.gateway.hostname,
        starttls: config.gateway.tls !== undefined,
      },
    }),
  );

  app.post(
    OUTBOUND_API.credentials,
    {
      ...common,
      // Each one is an argon2id hash: a few per minute is all an admin needs.
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary: 'Make a submission credential; its password is in this answer only',
        body: smtpCredentialBodySchema,
        response: { 200: smtpCredentialCreatedSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { tenantId, actor } = tenantActorOf(request);
      // The password is in this answer only: no cache keeps it.
      reply.header('cache-control', 'no-store');
      return service.create(tenantId, request.body.label, actor);
    },
  );

  app.delete(
    OUTBOUND_API.credential,
    {
      ...common,
      schema: {
        tags,
        summary: 'Revoke a submission credential: a server that uses it is refused from now on',
        params: smtpCredentialParamsSchema,
        response: { 200: smtpCredentialSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.revoke(tenantId, request.params.id, actor);
    },
  );
};
