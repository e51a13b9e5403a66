import { errorResponseSchema } from '@moat/contracts/errors';
import { ROUTES } from '@moat/contracts/routes';
import {
  oidcTestRequestSchema,
  SSO_API,
  SSO_RETURN_PARAMS,
  SSO_ROUTES,
  samlIdpSchema,
  samlStartRequestSchema,
  samlTestRequestSchema,
  signInSettingsSchema,
  signInSettingsUpdateSchema,
} from '@moat/contracts/sso';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { tenantActorOf } from '../../plugins/app/session.ts';
import { OIDC_PROVIDERS } from './oidc.service.ts';
import { SsoRefused } from './sso-handover.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 404: errorResponseSchema };
/** The largest SAMLResponse taken (base64 of a signed response with a few certificates). */
const ACS_BODY_LIMIT = 128 * 1024;
const tenantParams = z.object({ tenantId: z.string().uuid() });

/** The starting browser's secret (saml.service `start`): the hand-over works only with it. */
export const SSO_BROWSER_COOKIE = 'moat_sso';
export const SSO_BROWSER_COOKIE_PATH = '/api/v1/auth';

/** Each provider's popup page (SPEC §2.1). */
const POPUP_ROUTE = {
  saml: ROUTES.auth.samlLogin,
  microsoft: ROUTES.auth.office365,
  google: ROUTES.auth.loginGoogle,
} as const;

/** Where the popup goes back to, with what happened (SPEC §4 "External sign-in"). */
const popupReturn = (query: Record<string, string>, provider: keyof typeof POPUP_ROUTE = 'saml') =>
  `/#${POPUP_ROUTE[provider]}?${new URLSearchParams(query).toString()}`;
const providerParams = z.object({ provider: z.enum(OIDC_PROVIDERS) });

/**
 * SAML sign-in (issue 15): the popup's start, the identity provider's answer (ACS), the service
 * provider's metadata; and Settings → Sign-in for the tenant's admins.
 */
export const ssoRoutes: FastifyPluginAsyncZod = async (app) => {
  const saml = app.services.saml;
  const oidc = app.services.oidc;
  const settings = app.services.signInSettings;
  const setBrowserCookie = (reply: FastifyReply, browserSecret: string) =>
    reply.setCookie(SSO_BROWSER_COOKIE, browserSecret, {
      httpOnly: true,
      secure: app.config.secureCookies,
      sameSite: 'lax',
      path: SSO_BROWSER_COOKIE_PATH,
      maxAge: 600,
    });

  app.post(
    SSO_API.samlStart,
    {
      schema: {
        tags: ['auth'],
        summary: "Start a SAML sign-in for this email's organisation: the identity provider's URL to open",
        body: samlStartRequestSchema,
        response: { 200: z.object({ url: z.string() }), ...errors },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      const { url, browserSecret } = await saml.start(request.body.email);
      setBrowserCookie(reply, browserSecret);
      return { url };
    },
  );

  // The identity provider posts a form here across sites (HTTP-POST binding): parsed only here.
  await app.register(async (acs) => {
    acs.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: ACS_BODY_LIMIT },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    acs.withTypeProvider<ZodTypeProvider>().post(
      SSO_ROUTES.samlAcs,
      {
        schema: {
          tags: ['auth'],
          summary:
            "The tenant's Assertion Consumer Service: the identity provider's signed answer; sends the popup on",
          params: tenantParams,
          body: z.object({
            SAMLResponse: z.string().min(1).max(ACS_BODY_LIMIT),
            RelayState: z.string().optional(),
          }),
          response: { 303: z.null(), ...errors },
        },
        config: { crossSiteForm: true, rateLimit: { max: 60, timeWindow: '1 minute' } },
      },
      async (request, reply) => {
        try {
          const token = await saml.acs(
            request.params.tenantId,
            request.body.SAMLResponse,
            request.ip ?? null,
          );
          return reply.redirect(
            popupReturn({ [SSO_RETURN_PARAMS.success]: 'true', [SSO_RETURN_PARAMS.token]: token }),
            303,
          );
        } catch (error) {
          if (!(error instanceof SsoRefused)) throw error;
          request.log.warn({ reason: error.message }, 'SAML answer refused');
          return reply.redirect(popupReturn({ [SSO_RETURN_PARAMS.error]: 'saml' }), 303);
        }
      },
    );
  });

  app.post(
    SSO_ROUTES.oidcStart,
    {
      schema: {
        tags: ['auth'],
        summary:
          "Start a Microsoft or Google sign-in for this email's organisation: the provider's URL to open (code flow with PKCE)",
        params: providerParams,
        body: samlStartRequestSchema,
        response: { 200: z.object({ url: z.string() }), ...errors },
      },
      config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      const { url, browserSecret } = await oidc.start(request.params.provider, request.body.email);
      setBrowserCookie(reply, browserSecret);
      return { url };
    },
  );

  app.get(
    SSO_ROUTES.oidcCallback,
    {
      schema: {
        tags: ['auth'],
        summary: "The provider's redirect with the authorization code; sends the popup on",
        params: providerParams,
        querystring: z.object({
          code: z.string().max(4096).optional(),
          state: z.string().max(512).optional(),
          error: z.string().max(512).optional(),
          error_description: z.string().max(2048).optional(),
          iss: z.string().max(512).optional(),
          session_state: z.string().max(512).optional(),
        }),
        response: { 303: z.null(), ...errors },
      },
      config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      const { provider } = request.params;
      try {
        const token = await oidc.callback(
          provider,
          new URL(request.url, app.config.publicUrl),
          request.ip ?? null,
        );
        return reply.redirect(
          popupReturn({ [SSO_RETURN_PARAMS.success]: 'true', [SSO_RETURN_PARAMS.token]: token }, provider),
          303,
        );
      } catch (error) {
        if (!(error instanceof SsoRefused)) throw error;
        request.log.warn({ reason: error.message, provider }, 'OIDC answer refused');
        return reply.redirect(popupReturn({ [SSO_RETURN_PARAMS.error]: provider }, provider), 303);
      }
    },
  );

  app.post(
    SSO_API.oidcTest,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['settings'],
        summary: "Check an OpenID Connect issuer's discovery document without saving anything",
        body: oidcTestRequestSchema,
        response: { 200: z.object({ issuer: z.string(), authorization_endpoint: z.string() }), ...errors },
      },
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
    },
    async (request) => settings.testOidc(request.body.issuer),
  );

  app.get(
    SSO_ROUTES.samlMetadata,
    {
      schema: {
        tags: ['auth'],
        summary: "The tenant's SAML service provider metadata (entity id, ACS URL) for its identity provider",
        params: tenantParams,
        response: { 200: z.string().describe('SAML metadata (XML)'), ...errors },
      },
    },
    async (request, reply) =>
      reply
        .type('application/samlmetadata+xml; charset=utf-8')
        .send(await saml.metadata(request.params.tenantId)),
  );

  app.get(
    SSO_API.settings,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['settings'],
        summary: 'Settings → Sign-in: SAML, just-in-time users, whether passwords stay allowed',
        response: { 200: signInSettingsSchema, ...errors },
      },
    },
    async (request) => settings.get(tenantActorOf(request).tenantId),
  );

  app.put(
    SSO_API.settings,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['settings'],
        summary: 'Change the sign-in settings (the IdP from its metadata); audited',
        body: signInSettingsUpdateSchema,
        response: { 200: signInSettingsSchema, ...errors },
      },
      bodyLimit: 400_000,
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return settings.update(tenantId, request.body, actor);
    },
  );

  app.post(
    SSO_API.samlTest,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags: ['settings'],
        summary: "Read an identity provider's metadata without saving it: what Moat would use",
        body: samlTestRequestSchema,
        response: { 200: samlIdpSchema, ...errors },
      },
      bodyLimit: 400_000,
    },
    async (request) => settings.test(request.body.metadata_xml),
  );
};
