import { API } from '@moat/contracts/api-paths';
import {
  appsResponseSchema,
  CONSOLE_API,
  deploymentConfigSchema,
  learningModeSchema,
  licenceContactResponseSchema,
  licenceSeatsResponseSchema,
  unifiedQuarantineBodySchema,
} from '@moat/contracts/console';
import { errorResponseSchema } from '@moat/contracts/errors';
import { featureFlagsSchema } from '@moat/contracts/features';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';
import { sendLogo } from '../public-config/public-config.routes.ts';
import { createTenantsRepo, type TenantRow } from '../tenants/tenants.repo.ts';

const errors = { 403: errorResponseSchema };

/** The signed-in user's tenant: every console call is scoped by it (DESIGN §4 "Tenants"). */
export async function tenantOfRequest(
  request: FastifyRequest,
  tenants: ReturnType<typeof createTenantsRepo>,
): Promise<TenantRow> {
  const { user } = signedIn(request);
  const tenant = await tenants.findById(user.tenantId);
  if (!tenant) throw new AppError('forbidden', 'not authenticated');
  return tenant;
}

/** The tenant's deployment, licence, flags, apps and seats, as the console's shell reads them. */
export const deploymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.deployment;
  const tenants = createTenantsRepo(app.database.db);
  const tenantOf = (request: FastifyRequest) => tenantOfRequest(request, tenants);
  const tags = ['console'];
  const common = { preHandler: app.requireUser };

  app.get(
    CONSOLE_API.uiFeatures,
    {
      ...common,
      schema: {
        tags,
        summary: "Every feature flag of the user's tenant",
        response: { 200: featureFlagsSchema, ...errors },
      },
    },
    async (request) => service.features(await tenantOf(request)),
  );
  app.get(
    CONSOLE_API.deployment,
    {
      ...common,
      schema: {
        tags,
        summary: 'Deployment config and licence state of the tenant (SPEC §3, §4 "Licence state")',
        response: { 200: deploymentConfigSchema, ...errors },
      },
    },
    async (request) => service.deployment(await tenantOf(request)),
  );
  app.get(
    CONSOLE_API.apps,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's SaaS apps and security tools",
        response: { 200: appsResponseSchema, ...errors },
      },
    },
    async (request) => service.apps(signedIn(request).user.tenantId),
  );
  app.get(
    CONSOLE_API.licenceSeats,
    {
      ...common,
      schema: {
        tags,
        summary: "The tenant's licence seats",
        response: { 200: licenceSeatsResponseSchema, ...errors },
      },
    },
    async (request) => service.licenceSeats(signedIn(request).user.tenantId),
  );
  app.get(
    CONSOLE_API.learningMode,
    {
      ...common,
      schema: {
        tags,
        summary: 'Learning-mode progress (0–100) and its dialog',
        response: { 200: learningModeSchema, ...errors },
      },
    },
    async (request) => service.learningMode(await tenantOf(request)),
  );
  app.get(
    API.customIcon,
    {
      ...common,
      schema: {
        tags,
        summary: "The signed-in user's tenant logo, or its brand's default",
        response: { 200: z.any().describe('Image bytes (SVG, PNG, JPEG or WebP)'), ...errors },
      },
    },
    async (request, reply) => sendLogo(reply, app.services.publicConfig.logo(await tenantOf(request))),
  );
  app.put(
    CONSOLE_API.unifiedQuarantine,
    {
      ...common,
      schema: {
        tags,
        summary: 'Turn the Microsoft unified quarantine on or off for the tenant (admins)',
        body: unifiedQuarantineBodySchema,
        response: { 200: deploymentConfigSchema, 400: errorResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      if (user.role !== 'admin') throw new AppError('insufficient_privileges', 'Insufficient privileges');
      return service.setUnifiedQuarantine(
        await tenantOf(request),
        request.body.enabled,
        userActorOf(request),
      );
    },
  );
  app.post(
    CONSOLE_API.licenceContact,
    {
      ...common,
      config: { rateLimit: { max: 5, timeWindow: '1 hour' } },
      schema: {
        tags,
        summary: 'The licence banner\'s "Contact us": tells the provider to reach the customer',
        body: z.object({}).strict().optional(),
        response: { 200: licenceContactResponseSchema, ...errors, 429: errorResponseSchema },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      return service.licenceContact(await tenantOf(request), user, userActorOf(request));
    },
  );
};
