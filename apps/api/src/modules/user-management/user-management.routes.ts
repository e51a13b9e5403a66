import { errorResponseSchema } from '@moat/contracts/errors';
import {
  inviteUserBodySchema,
  managedUserSchema,
  USERS_API,
  updateUserBodySchema,
  userIdParamsSchema,
  userListSchema,
  userQuerySchema,
} from '@moat/contracts/users';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { signedIn, tenantActorOf } from '../../plugins/app/session.ts';
import type { Admin } from './user-management.service.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  409: errorResponseSchema,
  429: errorResponseSchema,
};

function adminOf(request: FastifyRequest): Admin {
  const { user } = signedIn(request);
  return { tenantId: user.tenantId, userId: user.id, email: user.email, actor: tenantActorOf(request).actor };
}

/**
 * System Settings → User Management (SPEC §2.4, §6: admins, and a demo deployment's users, who
 * only look): users, invitations, roles, flags, MFA.
 */
export const userManagementRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.userManagement;
  const tags = ['users'];
  const common = { preHandler: app.requireAdmin };
  // Each invitation sends an email: bounded per admin session like the other mail-sending calls.
  const mailing = { rateLimit: { max: 30, timeWindow: '1 hour' } };

  app.get(
    USERS_API.users,
    {
      preHandler: app.requireAdminOrDemo,
      schema: {
        tags,
        summary: "The organisation's users: role, flags, state, MFA and last sign-in",
        querystring: userQuerySchema,
        response: { 200: userListSchema, ...errors },
      },
    },
    async (request) => service.list(adminOf(request), request.query),
  );

  app.post(
    USERS_API.users,
    {
      ...common,
      config: mailing,
      schema: {
        tags,
        summary:
          "Invite a user of the organisation's domains: an email with a link to choose a password (7 days)",
        body: inviteUserBodySchema,
        response: { 200: managedUserSchema, ...errors },
      },
    },
    async (request) => service.invite(adminOf(request), request.body),
  );

  app.patch(
    USERS_API.user,
    {
      ...common,
      schema: {
        tags,
        summary:
          "Change a user's role, names, flags, MFA requirement or disabled state (not your own role or state; one active admin always stays)",
        params: userIdParamsSchema,
        body: updateUserBodySchema,
        response: { 200: managedUserSchema, ...errors },
      },
    },
    async (request) => service.update(adminOf(request), request.params.id, request.body),
  );

  app.post(
    USERS_API.resendInvite,
    {
      ...common,
      config: mailing,
      schema: {
        tags,
        summary:
          'Send a new invitation link to a user who has not chosen a password (the old link stops working)',
        params: userIdParamsSchema,
        body: z.object({}).strict().optional(),
        response: { 200: managedUserSchema, ...errors },
      },
    },
    async (request) => service.resendInvite(adminOf(request), request.params.id),
  );

  app.post(
    USERS_API.resetMfa,
    {
      ...common,
      config: mailing,
      schema: {
        tags,
        summary:
          "Turn a user's MFA off (a lost authenticator): their sessions end and they are told by email",
        params: userIdParamsSchema,
        body: z.object({}).strict().optional(),
        response: { 200: managedUserSchema, ...errors },
      },
    },
    async (request) => service.resetMfa(adminOf(request), request.params.id),
  );
};
