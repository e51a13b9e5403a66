import {
  DKIM_SIGNING_API,
  dkimDomainParamsSchema,
  dkimNewKeySchema,
  dkimRotateSchema,
  dkimSigningChangeResponseSchema,
  dkimSigningResponseSchema,
  dkimSigningSwitchSchema,
} from '@moat/contracts/dkim-signing';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/** DKIM signing (issue 38), in DKIM Management: admins only. */
export const dkimSigningRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.dkimSigning;
  const tags = ['dkim-signing'];
  // Each answer asks DNS about every key; a new key is an RSA key made on this server.
  const common = { preHandler: app.requireAdmin, config: { rateLimit: { max: 30, timeWindow: '1 minute' } } };
  const change = { 200: dkimSigningChangeResponseSchema, ...errors };

  app.get(
    DKIM_SIGNING_API.list,
    {
      ...common,
      schema: {
        tags,
        summary:
          "Each domain's DKIM signing keys, the TXT record to publish for each, whether DNS shows it, and whether signing is on",
        response: { 200: dkimSigningResponseSchema, ...errors },
      },
    },
    async (request) => service.list(tenantActorOf(request).tenantId),
  );

  app.post(
    DKIM_SIGNING_API.keys,
    {
      ...common,
      schema: {
        tags,
        summary: 'Make a signing key for a domain (RSA 2048, or Ed25519 beside it), sealed on the server',
        params: dkimDomainParamsSchema,
        body: dkimNewKeySchema,
        response: change,
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.createKey(tenantId, request.params.domain, request.body.algorithm, actor);
    },
  );

  app.put(
    DKIM_SIGNING_API.signing,
    {
      ...common,
      schema: {
        tags,
        summary:
          "Sign the domain's mail, or stop; a key DNS does not show yet is a warning in the answer, not a refusal",
        params: dkimDomainParamsSchema,
        body: dkimSigningSwitchSchema,
        response: change,
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.setSigning(tenantId, request.params.domain, request.body.enabled, actor);
    },
  );

  app.post(
    DKIM_SIGNING_API.rotate,
    {
      ...common,
      schema: {
        tags,
        summary: 'Start a key rotation: a next key at a new selector, to publish while the current key signs',
        params: dkimDomainParamsSchema,
        body: dkimRotateSchema,
        response: change,
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.rotate(tenantId, request.params.domain, request.body.algorithm, actor);
    },
  );

  app.post(
    DKIM_SIGNING_API.finishRotation,
    {
      ...common,
      schema: {
        tags,
        summary: 'Finish a key rotation: the next key signs from now, the old one stays published a week',
        params: dkimDomainParamsSchema,
        body: dkimRotateSchema,
        response: change,
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.finishRotation(tenantId, request.params.domain, request.body.algorithm, actor);
    },
  );
};
