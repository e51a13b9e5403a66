import {
  loginStepResponseSchema,
  mfaDisableParamsSchema,
  mfaDisableRequestSchema,
  mfaEnrolmentSchema,
  mfaSettingsSchema,
  mfaUserRequestSchema,
  mfaVerifySetupRequestSchema,
  successSchema,
} from '@moat/contracts/auth';
import { AUTH_API, AUTH_ROUTES } from '@moat/contracts/auth-paths';
import { errorResponseSchema } from '@moat/contracts/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { signedIn } from '../../plugins/app/session.ts';
import { LOGIN_CHALLENGE_COOKIE, requestMeta, setDeviceCookie } from '../auth/auth.routes.ts';

const errors = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  403: errorResponseSchema,
  409: errorResponseSchema,
  429: errorResponseSchema,
};
const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: '1 minute' } });

/** The MFA calls of SPEC §7. The `_public` ones work only inside a sign-in whose password is proven. */
export const mfaRoutes: FastifyPluginAsyncZod = async (app) => {
  const mfa = app.services.mfa;
  const auth = app.services.auth;

  app.post(
    AUTH_API.mfaSetup,
    {
      schema: {
        tags: ['mfa'],
        summary: 'MFA settings of the signed-in user',
        body: mfaUserRequestSchema,
        response: { 200: mfaSettingsSchema, ...errors },
      },
      preHandler: app.requireUser,
    },
    async (request) => mfa.settings(signedIn(request).user, request.body.userEmail),
  );

  app.put(
    AUTH_API.mfaSetup,
    {
      schema: {
        tags: ['mfa'],
        summary: 'Start MFA setup: a new secret and its QR code',
        body: mfaUserRequestSchema,
        response: { 200: mfaEnrolmentSchema, ...errors },
      },
      preHandler: app.requireUser,
      config: perMinute(20),
    },
    async (request) => mfa.startSetup(signedIn(request).user, request.body.userEmail),
  );

  app.post(
    AUTH_API.mfaVerifySetup,
    {
      schema: {
        tags: ['mfa'],
        summary: 'Verify the first code of the MFA setup; turns MFA on and ends the other sessions',
        body: mfaVerifySetupRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      preHandler: app.requireUser,
      config: perMinute(20),
    },
    async (request) => {
      const { user, session } = signedIn(request);
      return { success: await mfa.verifySetup(user, session, request.body, requestMeta(request)) };
    },
  );

  app.delete(
    AUTH_ROUTES.mfaDisable,
    {
      schema: {
        tags: ['mfa'],
        summary: 'Turn MFA off (not when an admin requires it); the password must be entered again',
        params: mfaDisableParamsSchema,
        body: mfaDisableRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      preHandler: app.requireUser,
      config: perMinute(10),
    },
    async (request) => {
      const { user, session } = signedIn(request);
      await mfa.disable(
        user,
        session,
        request.params.email.toLowerCase(),
        request.body.password,
        requestMeta(request),
      );
      return { success: true };
    },
  );

  app.put(
    AUTH_API.mfaSetupPublic,
    {
      schema: {
        tags: ['mfa'],
        summary: 'MFA setup required by the admin, inside a sign-in whose password and email are proven',
        body: mfaUserRequestSchema,
        response: { 200: mfaEnrolmentSchema, ...errors },
      },
      config: perMinute(20),
    },
    async (request) => auth.setupPublic(request.cookies[LOGIN_CHALLENGE_COOKIE], request.body.userEmail),
  );

  app.post(
    AUTH_API.mfaVerifyPublic,
    {
      schema: {
        tags: ['mfa'],
        summary: 'Verify the first code of an admin-required MFA setup; completes the sign-in',
        body: mfaVerifySetupRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: perMinute(20),
    },
    async (request, reply) => {
      const outcome = await auth.verifyPublic(
        request.cookies[LOGIN_CHALLENGE_COOKIE],
        request.body,
        requestMeta(request),
      );
      if (outcome.sessionToken) {
        app.services.sessions.setCookie(reply, outcome.sessionToken);
        setDeviceCookie(reply, outcome, app.config.secureCookies);
        reply.clearCookie(LOGIN_CHALLENGE_COOKIE, { path: '/api/v1' });
      }
      return outcome.response;
    },
  );
};
