import {
  CUSTOMIZATION_API,
  customizationSchema,
  customizationUpdateSchema,
  logoUploadSchema,
} from '@moat/contracts/customization';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tenantActorOf } from '../../plugins/app/session.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema };

/** System Settings → Customization: the logo and the default theme (admins change them). */
export const customizationRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.customization;
  const tags = ['customization'];

  app.get(
    CUSTOMIZATION_API.customization,
    {
      preHandler: app.requireUser,
      schema: {
        tags,
        summary: "The organisation's logo state and default theme, and which of them may be changed",
        response: { 200: customizationSchema, ...errors },
      },
    },
    async (request) => service.get(tenantActorOf(request).tenantId),
  );

  app.put(
    CUSTOMIZATION_API.customization,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: 'Set the theme of anyone who has not chosen one (enableChangeApplicationMode); audited',
        body: customizationUpdateSchema,
        response: { 200: customizationSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.setApplicationMode(tenantId, request.body.default_application_mode, actor);
    },
  );

  app.put(
    CUSTOMIZATION_API.logo,
    {
      preHandler: app.requireAdmin,
      // A 1 MiB file is about 1.4 MB as base64.
      bodyLimit: 2 * 1024 * 1024,
      schema: {
        tags,
        summary:
          'Upload the logo (PNG, JPEG, WebP or a plain SVG, at most 1 MiB, base64): an SVG with scripts, handlers or outside links is refused; audited',
        body: logoUploadSchema,
        response: { 200: customizationSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      const bytes = Buffer.from(request.body.data, 'base64');
      return service.setLogo(tenantId, bytes, request.body.mime, actor);
    },
  );

  app.delete(
    CUSTOMIZATION_API.logo,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: "Restore the brand's logo; audited",
        body: z.object({}).strict().optional(),
        response: { 200: customizationSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.clearLogo(tenantId, actor);
    },
  );
};
