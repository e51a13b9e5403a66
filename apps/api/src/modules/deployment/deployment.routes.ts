import { API } from '@moat/contracts/api-paths';
import {
  appsResponseSchema,
  appsUpdateBodySchema,
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
import { signedIn, userActorOf } from '../../plugins/app/session.ts';
import { sendLogo } from '../public-config/public-config.routes.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';
import type { DeploymentService } from './deployment.service.ts';

const errors = { 403: errorResponseSchema };

/** The signed-in user's tenant: every console call is scoped by it (DESIGN §4 "Tenants"). */
export function tenantOfRequest(
  request: FastifyRequest,
  deployment: Pick<DeploymentService, 'tenant'>,
): Promise<TenantRow> {
  return deployment.tenant(signedIn(request).user.tenantId);
}

/** The tenant's deployment, licence, flags, apps and seats, as the console's shell reads them. */
export const deploymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.deployment;
  const tenantOf = (request: FastifyRequest) => tenantOfRequest(request, service);
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
  app.put(
    CONSOLE_API.apps,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary:
          "Turn the tenant's SaaS apps and security engines of this edition on or off (admins); audited",
        body: appsUpdateBodySchema,
        response: { 200: appsResponseSchema, 400: errorResponseSchema, ...errors },
      },
    },
    async (request) => {
      const tenantId = signedIn(request).user.tenantId;
      const { apps, tools } = request.body;
      await app.services.tenants.setApps(
        tenantId,
        [
          ...apps.map((a) => ({ kind: 'saas_app' as const, ...a })),
          ...tools.map((t) => ({ kind: 'security_tool' as const, ...t })),
        ],
        userActorOf(request),
      );
      return service.apps(tenantId);
    },
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
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: 'Turn the Microsoft unified quarantine on or off for the tenant (admins)',
        body: unifiedQuarantineBodySchema,
        response: { 200: deploymentConfigSchema, 400: errorResponseSchema, ...errors },
      },
    },
    async (request) =>
      service.setUnifiedQuarantine(await tenantOf(request), request.body.enabled, userActorOf(request)),
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
