import {
  authSessionSchema,
  autoLoginRequestSchema,
  forgotPasswordRequestSchema,
  loginReasonRequestSchema,
  loginRequestSchema,
  loginStepResponseSchema,
  logoutReasonRequestSchema,
  mailVerificationRequestSchema,
  mailVerificationSendResponseSchema,
  mfaCodeRequestSchema,
  passwordChangeRequestSchema,
  passwordExpiredRequestSchema,
  resetPasswordRequestSchema,
  serverLoginRequestSchema,
  successSchema,
  tokenLoginRequestSchema,
} from '@moat/contracts/auth';
import { AUTH_API } from '@moat/contracts/auth-paths';
import { PORTAL_TOKEN_MAX_LENGTH } from '@moat/contracts/constants';
import { errorResponseSchema } from '@moat/contracts/errors';
import { SSO_API, ssoCompleteRequestSchema } from '@moat/contracts/sso';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { acceptFormFields, isFormFields } from '../../lib/form-fields.ts';
import { signedIn } from '../../plugins/app/session.ts';
import { SSO_BROWSER_COOKIE, SSO_BROWSER_COOKIE_PATH } from '../sso/sso.routes.ts';
import { MfaLockedError } from './code-lock.ts';
import { DEVICE_TRUST_MS } from './device-trust.ts';
import { PasswordExpiredError } from './password.service.ts';
import type { RequestMeta, StepOutcome } from './sign-in.ts';

/** The pending sign-in (password proven, a step to go) lives in its own short cookie. */
export const LOGIN_CHALLENGE_COOKIE = 'moat_login';
/** The browser's device cookie (device-trust.ts): read by the sign-in calls only. */
export const DEVICE_COOKIE = 'moat_device';
const DEVICE_COOKIE_PATH = '/api/v1/auth';

export function requestMeta(request: FastifyRequest): RequestMeta {
  return {
    ip: request.ip ?? null,
    userAgent: request.headers['user-agent'] ?? null,
    deviceCookie: request.cookies[DEVICE_COOKIE] ?? null,
  };
}

/** Set the device cookie a successful sign-in produced (any route that ends a sign-in). */
export function setDeviceCookie(reply: FastifyReply, outcome: StepOutcome, secure: boolean) {
  if (!outcome.deviceCookie) return;
  reply.setCookie(DEVICE_COOKIE, outcome.deviceCookie, {
    httpOnly: true,
    secure,
    sameSite: 'strict',
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_TRUST_MS / 1000,
  });
}

/** A paused code step answers when it opens again in Retry-After too. */
function retryAfter(reply: FastifyReply, error: unknown, now: Date) {
  if (error instanceof MfaLockedError) reply.header('retry-after', String(error.retryAfterSeconds(now)));
}

const captchaQuery = z.object({ strength: z.enum(['standard', 'strong']).optional() });

const errors = {
  400: errorResponseSchema,
  401: errorResponseSchema,
  403: errorResponseSchema,
  429: errorResponseSchema,
};
const perMinute = (max: number) => ({ rateLimit: { max, timeWindow: '1 minute' } });
/** The msp brand's form: one token field and its boundaries. */
const SERVER_LOGIN_BODY_LIMIT = 8 * 1024;

export const authRoutes: FastifyPluginAsyncZod = async (app) => {
  const auth = app.services.auth;
  const sessions = app.services.sessions;
  const { loginThrottled } = app.services.metrics;
  /** The sign-in steps' limit: a request refused by it is a throttled sign-in (issue 14). */
  const signInPerMinute = (max: number) => ({
    rateLimit: { ...perMinute(max).rateLimit, onExceeded: () => loginThrottled.inc({ kind: 'rate_limit' }) },
  });
  const secure = app.config.secureCookies;

  function setChallengeCookie(reply: FastifyReply, token: string) {
    reply.setCookie(LOGIN_CHALLENGE_COOKIE, token, {
      httpOnly: true,
      secure,
      sameSite: 'strict',
      path: '/api/v1',
      maxAge: 600,
    });
  }

  /** Set the cookies a sign-in step produced and answer its body. */
  function answer(reply: FastifyReply, outcome: StepOutcome) {
    setDeviceCookie(reply, outcome, secure);
    if (outcome.sessionToken) sessions.setCookie(reply, outcome.sessionToken);
    else if (outcome.clearSession) sessions.clearCookie(reply);
    if (outcome.challengeToken) {
      setChallengeCookie(reply, outcome.challengeToken);
    } else if (outcome.clearChallenge) {
      reply.clearCookie(LOGIN_CHALLENGE_COOKIE, { path: '/api/v1' });
    }
    return outcome.response;
  }
  const challengeOf = (request: FastifyRequest) => request.cookies[LOGIN_CHALLENGE_COOKIE];

  app.get(
    AUTH_API.captchaChallenge,
    {
      schema: {
        tags: ['auth'],
        summary:
          'A fresh ALTCHA proof-of-work challenge; strength=strong: the ten times harder one an account that sees many failed sign-ins asks for',
        querystring: captchaQuery,
        hide: false,
      },
      // Cheap to make and useless without the work: generous, so a whole office behind one NAT can sign in.
      config: perMinute(600),
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return app.services.captcha.challenge(request.query.strength);
    },
  );

  app.post(
    AUTH_API.login,
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with email, password and captcha; answers the next step',
        body: loginRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: signInPerMinute(30),
    },
    async (request, reply) => {
      try {
        return answer(reply, await auth.login(request.body, requestMeta(request)));
      } catch (error) {
        if (error instanceof PasswordExpiredError) setChallengeCookie(reply, error.challengeToken);
        throw error;
      }
    },
  );

  app.post(
    AUTH_API.mfaCode,
    {
      schema: {
        tags: ['auth'],
        summary:
          'The one-time code of a sign-in with MFA (success false for a wrong code; 429 ends the sign-in: too many codes in it, or mfa_locked, too many of the user over every sign-in, with Retry-After)',
        body: mfaCodeRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: signInPerMinute(30),
    },
    async (request, reply) => {
      try {
        return answer(
          reply,
          await auth.verifyMfaCode(challengeOf(request), request.body.code, requestMeta(request)),
        );
      } catch (error) {
        reply.clearCookie(LOGIN_CHALLENGE_COOKIE, { path: '/api/v1' });
        retryAfter(reply, error, app.clock.now());
        throw error;
      }
    },
  );

  app.post(
    AUTH_API.mailVerificationSend,
    {
      schema: {
        tags: ['auth'],
        summary: 'Send again the mail verification code of the pending sign-in (after wait_time)',
        response: { 200: mailVerificationSendResponseSchema, ...errors },
      },
      config: perMinute(10),
    },
    async (request) => auth.sendMailVerification(challengeOf(request)),
  );

  app.post(
    AUTH_API.mailVerificationVerify,
    {
      schema: {
        tags: ['auth'],
        summary:
          'Check the emailed code before the first MFA setup; 403 is a wrong code; 429 mfa_locked (with Retry-After): too many wrong codes of the user over every sign-in',
        body: mailVerificationRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: perMinute(30),
    },
    async (request, reply) => {
      try {
        return answer(
          reply,
          await auth.verifyMailCode(
            challengeOf(request),
            request.body.email,
            request.body.code,
            requestMeta(request),
          ),
        );
      } catch (error) {
        retryAfter(reply, error, app.clock.now());
        throw error;
      }
    },
  );

  app.post(
    AUTH_API.logout,
    {
      schema: { tags: ['auth'], summary: 'End the session on the server', response: { 200: successSchema } },
    },
    async (request, reply) => {
      await auth.logout(request.session, request.user, requestMeta(request));
      sessions.clearCookie(reply);
      return { success: true };
    },
  );

  app.post(
    AUTH_API.forgotPassword,
    {
      schema: {
        tags: ['auth'],
        summary: 'Email a reset link if the account exists; always the same answer',
        body: forgotPasswordRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      config: perMinute(10),
    },
    async (request) => {
      await auth.forgotPassword(request.body, requestMeta(request));
      return { success: true };
    },
  );

  app.post(
    AUTH_API.resetPassword,
    {
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset (or invite) link; ends every session',
        body: resetPasswordRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      config: perMinute(10),
    },
    async (request) => {
      await auth.resetPassword(request.body, requestMeta(request));
      return { success: true };
    },
  );

  app.post(
    AUTH_API.passwordExpired,
    {
      schema: {
        tags: ['auth'],
        summary: 'Change an expired password with the current one',
        body: passwordExpiredRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      config: perMinute(10),
    },
    async (request, reply) => {
      await auth.changeExpiredPassword(challengeOf(request), request.body, requestMeta(request));
      reply.clearCookie(LOGIN_CHALLENGE_COOKIE, { path: '/api/v1' });
      return { success: true };
    },
  );

  app.post(
    AUTH_API.passwordChange,
    {
      schema: {
        tags: ['auth'],
        summary:
          'Replace the one-time password this session signed in with (the only call such a session may make, with logout); every session of the user ends; answers the next step (a new session, or the MFA setup the admin requires)',
        body: passwordChangeRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors, 409: errorResponseSchema },
      },
      preHandler: app.requireSession,
      config: perMinute(10),
    },
    async (request, reply) => {
      const { session, user } = signedIn(request);
      return answer(
        reply,
        await auth.replaceOneTimePassword(session, user, request.body, requestMeta(request)),
      );
    },
  );

  app.post(
    AUTH_API.loginReason,
    {
      schema: {
        tags: ['auth'],
        summary: 'The login reason of a maintenance sign-in, written to the audit log as Login-Reason',
        body: loginReasonRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      preHandler: app.requireSession,
    },
    async (request) => {
      const { session, user } = signedIn(request);
      await auth.loginReason(session, user, request.body.loginReason, requestMeta(request));
      return { success: true };
    },
  );

  app.post(
    AUTH_API.logoutReason,
    {
      schema: {
        tags: ['auth'],
        summary: 'Record why the browser was sent back to sign-in',
        body: logoutReasonRequestSchema,
        response: { 200: successSchema, ...errors },
      },
      config: perMinute(10),
    },
    async (request) => {
      await auth.logoutReason(request.body.reason, request.user, requestMeta(request));
      return { success: true };
    },
  );

  app.post(
    AUTH_API.tokenLogin,
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with a one-time access token from a sign-in link',
        body: tokenLoginRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: perMinute(20),
    },
    async (request, reply) =>
      answer(reply, await auth.tokenLogin(request.body.accessToken, requestMeta(request))),
  );

  app.post(
    SSO_API.complete,
    {
      schema: {
        tags: ['auth'],
        summary:
          "Exchange the SAML popup's one-time hand-over token for the sign-in's next step (the session, or Moat's MFA when the tenant requires it)",
        body: ssoCompleteRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: signInPerMinute(20),
    },
    async (request, reply) => {
      const browserSecret = request.cookies[SSO_BROWSER_COOKIE] ?? '';
      reply.clearCookie(SSO_BROWSER_COOKIE, { path: SSO_BROWSER_COOKIE_PATH });
      return answer(reply, await auth.ssoComplete(request.body.token, browserSecret, requestMeta(request)));
    },
  );

  app.post(
    AUTH_API.autoLogin,
    {
      schema: {
        tags: ['auth'],
        summary:
          "Sign in with the checkpoint brand's one-time token ({session_id}) or the firewall vendor's, for its serial number ({session_id, serial_number})",
        body: autoLoginRequestSchema,
        response: { 200: loginStepResponseSchema, ...errors },
      },
      config: perMinute(20),
    },
    async (request, reply) => {
      const { session_id: token, serial_number: serial } = request.body;
      const brand = serial === undefined ? 'checkpoint' : 'firewall';
      return answer(reply, await auth.portalLogin(brand, token, serial ?? null, requestMeta(request)));
    },
  );

  // The msp brand's sign-in is a multipart form (SPEC §7): the parser lives only in this scope,
  // takes a few short text fields and refuses files.
  await app.register(async (form) => {
    acceptFormFields(form, {
      bodyBytes: SERVER_LOGIN_BODY_LIMIT,
      fieldBytes: PORTAL_TOKEN_MAX_LENGTH,
      fields: 5,
    });
    form.withTypeProvider<ZodTypeProvider>().post(
      AUTH_API.serverLogin,
      {
        schema: {
          tags: ['auth'],
          summary:
            "Sign in with the msp brand's one-time token, sent as a multipart form; answers the text success",
          consumes: ['multipart/form-data'],
          body: serverLoginRequestSchema,
          response: { 200: z.literal('success'), ...errors },
        },
        config: perMinute(20),
        // The JSON parser is global; this call takes the form only, as SPEC §7 has it.
        preValidation: async (request) => {
          if (!isFormFields(request)) {
            throw new AppError(
              'unsupported_media_type',
              'Send the token as a multipart/form-data field "token"',
            );
          }
        },
      },
      async (request, reply) => {
        answer(reply, await auth.portalLogin('msp', request.body.token, null, requestMeta(request)));
        return reply.type('text/plain; charset=utf-8').send('success');
      },
    );
  });

  app.get(
    AUTH_API.session,
    {
      schema: {
        tags: ['auth'],
        summary: 'Whether this browser has a live session (never a 403)',
        response: { 200: authSessionSchema },
      },
    },
    async (request) => ({
      authenticated: Boolean(request.session),
      login_reason_required: Boolean(request.session?.loginReasonRequired),
      password_change_required: Boolean(request.user?.mustChangePassword),
    }),
  );
};
