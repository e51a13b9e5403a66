import { API } from '@moat/contracts/api-paths';
import { successSchema } from '@moat/contracts/auth';
import { CONSOLE_API, preferencesUpdateSchema } from '@moat/contracts/console';
import {
  ACCOUNT_API,
  changePasswordRequestSchema,
  currentUserSchema,
  endedSessionsSchema,
  NOT_AUTHENTICATED_MESSAGE,
  ownSessionParamsSchema,
  ownSessionsSchema,
} from '@moat/contracts/current-user';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { signedIn, userActorOf } from '../../plugins/app/session.ts';
import { requestMeta } from '../auth/auth.routes.ts';
import type { UserRow } from '../users/users.repo.ts';
import { knownPreferences } from './current-user.service.ts';

export function toCurrentUser(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    role: user.role,
    hidden: user.hidden,
    mfa_secret_set: user.mfaEnabled,
    on_boarding_required: user.onBoardingRequired,
    automation_customer: user.automationCustomer,
    view_private_data: user.viewPrivateData,
    view_policy: user.viewPolicy,
    view_edit_policy: user.viewEditPolicy,
    locked_status: { should_lock: user.locked },
    user_preferences: knownPreferences(user.preferences),
  };
}

export const currentUserRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    API.currentUser,
    {
      schema: {
        tags: ['session'],
        summary: 'The signed-in user; 403 "not authenticated" without a live session',
        response: { 200: currentUserSchema, 403: errorResponseSchema },
      },
    },
    async (request) => {
      if (!request.user) throw new AppError('forbidden', NOT_AUTHENTICATED_MESSAGE);
      return toCurrentUser(request.user);
    },
  );

  app.put(
    CONSOLE_API.preferences,
    {
      preHandler: app.requireUser,
      schema: {
        tags: ['session'],
        summary: "Save the user's preferences (the theme is applicationMode); answers the current user",
        body: preferencesUpdateSchema,
        response: { 200: currentUserSchema, 400: errorResponseSchema, 403: errorResponseSchema },
      },
    },
    async (request) => {
      const { user } = signedIn(request);
      return toCurrentUser(await app.services.currentUser.savePreferences(user, request.body));
    },
  );

  const account = { tags: ['session'] };
  const accountErrors = {
    400: errorResponseSchema,
    401: errorResponseSchema,
    403: errorResponseSchema,
    404: errorResponseSchema,
    429: errorResponseSchema,
  };

  app.post(
    ACCOUNT_API.password,
    {
      preHandler: app.requireUser,
      config: { rateLimit: { max: 10, timeWindow: '1 minute' } },
      schema: {
        ...account,
        summary:
          'Change your password: the current one again; every other session of yours ends; audited, and you are told by email',
        body: changePasswordRequestSchema,
        response: { 200: successSchema, ...accountErrors },
      },
    },
    async (request) => {
      const { user, session } = signedIn(request);
      await app.services.auth.changeOwnPassword(user, session.id, request.body, requestMeta(request));
      return { success: true };
    },
  );

  app.get(
    ACCOUNT_API.sessions,
    {
      preHandler: app.requireUser,
      schema: {
        ...account,
        summary: 'Your open sessions: where and when each was last used; yours is marked current',
        response: { 200: ownSessionsSchema, ...accountErrors },
      },
    },
    async (request) => {
      const { user, session } = signedIn(request);
      return { sessions: await app.services.currentUser.sessions(user, session.id) };
    },
  );

  app.post(
    ACCOUNT_API.endOtherSessions,
    {
      preHandler: app.requireUser,
      schema: {
        ...account,
        summary: 'End every session of yours but this one; audited',
        body: z.object({}).strict().optional(),
        response: { 200: endedSessionsSchema, ...accountErrors },
      },
    },
    async (request) => {
      const { user, session } = signedIn(request);
      return {
        ended: await app.services.currentUser.endOtherSessions(user, session.id, userActorOf(request)),
      };
    },
  );

  app.delete(
    ACCOUNT_API.session,
    {
      preHandler: app.requireUser,
      schema: {
        ...account,
        summary: 'End one of your other sessions; audited',
        params: ownSessionParamsSchema,
        response: { 200: endedSessionsSchema, ...accountErrors },
      },
    },
    async (request) => {
      const { user, session } = signedIn(request);
      await app.services.currentUser.endSession(
        user,
        session.id,
        Number(request.params.id),
        userActorOf(request),
      );
      return { ended: 1 };
    },
  );
};
