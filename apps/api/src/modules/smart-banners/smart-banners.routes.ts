import { errorResponseSchema } from '@moat/contracts/errors';
import {
  bannerPreviewInputSchema,
  bannerPreviewSchema,
  bannerSamplesSchema,
  SMART_BANNERS_API,
  smartBannersInputSchema,
  smartBannersSchema,
} from '@moat/contracts/smart-banners';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
};

/**
 * User Interaction → Smart Banners (admins only: it changes how every delivered message looks,
 * and its preview shows the tenant's own mail).
 */
export const smartBannersRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.smartBanners;
  const tags = ['smart-banners'];
  const common = { preHandler: app.requireAdmin };

  app.get(
    SMART_BANNERS_API.settings,
    {
      ...common,
      schema: {
        tags,
        summary: "Each verdict's banner (words, colour, subject tag, on delivery) and the senders spared",
        response: { 200: smartBannersSchema, ...errors },
      },
    },
    async (request) => service.get(tenantActorOf(request).tenantId),
  );

  app.put(
    SMART_BANNERS_API.settings,
    {
      ...common,
      schema: {
        tags,
        summary: 'Save every banner at once; audited, used by the gateway for the next message',
        body: smartBannersInputSchema,
        response: { 200: smartBannersSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.save(tenantId, request.body, actor);
    },
  );

  app.get(
    SMART_BANNERS_API.samples,
    {
      ...common,
      schema: {
        tags,
        summary: 'The newest messages Moat holds a copy of, to preview a banner on',
        response: { 200: bannerSamplesSchema, ...errors },
      },
    },
    async (request) => service.samples(tenantActorOf(request).tenantId),
  );

  app.post(
    SMART_BANNERS_API.preview,
    {
      ...common,
      config: { rateLimit: { max: 120, timeWindow: '1 minute' } },
      schema: {
        tags,
        summary:
          'A message as its recipient would get it under the settings given (not saved), made inert to show',
        body: bannerPreviewInputSchema,
        response: { 200: bannerPreviewSchema, ...errors, 429: errorResponseSchema },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.preview(tenantId, request.body, actor.email);
    },
  );
};
