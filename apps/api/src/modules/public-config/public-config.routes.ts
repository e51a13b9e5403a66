import { API } from '@moat/contracts/api-paths';
import { publicFeaturesSchema } from '@moat/contracts/features';
import { recaptchaConfigSchema } from '@moat/contracts/public-config';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Logo } from './public-config.service.ts';

/** Logos may be SVG: served so that nothing in them can run, and never sniffed as another type. */
export function sendLogo(reply: FastifyReply, logo: Logo) {
  return reply
    .type(logo.mime)
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
    .header('cache-control', logo.isDefault ? 'public, max-age=3600' : 'private, max-age=300')
    .send(logo.body);
}

export const publicConfigRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.publicConfig;

  app.get(
    API.uiFeaturesPublic,
    {
      schema: {
        tags: ['public'],
        summary: 'Feature flags the sign-in area and public pages need (no sign-in)',
        response: { 200: publicFeaturesSchema },
      },
    },
    async () => service.publicFeatures(await service.primaryTenant()),
  );

  app.get(
    API.recaptchaConfig,
    {
      schema: {
        tags: ['public'],
        summary: 'Captcha provider and site key (no sign-in)',
        response: { 200: recaptchaConfigSchema },
      },
    },
    async () => service.recaptchaConfig(),
  );

  app.get(
    API.customIconPublic,
    {
      schema: {
        tags: ['public'],
        summary: "The tenant's logo, or the brand's default (no sign-in)",
        response: { 200: z.any().describe('Image bytes (SVG, PNG, JPEG or WebP)') },
      },
    },
    async (_request, reply) => sendLogo(reply, service.logo(await service.primaryTenant())),
  );
};
