import { API } from '@moat/contracts/api-paths';
import { CONSOLE_API, preferencesUpdateSchema } from '@moat/contracts/console';
import { currentUserSchema, NOT_AUTHENTICATED_MESSAGE } from '@moat/contracts/current-user';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import { signedIn } from '../../plugins/app/session.ts';
import type { UserRow } from '../users/users.repo.ts';

export function toCurrentUser(user: UserRow) {
  const prefs = user.preferences as Record<string, unknown>;
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
    user_preferences: prefs,
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
};
