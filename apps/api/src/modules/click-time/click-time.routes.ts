import {
  CLICK_TIME_API,
  clicksQuerySchema,
  clicksResponseSchema,
  clickTimeSettingsSchema,
  LINK_PATH_PREFIX,
  linkCheckQuerySchema,
  linkCheckResponseSchema,
  linkContinueResponseSchema,
} from '@moat/contracts/click-time';
import { errorResponseSchema } from '@moat/contracts/errors';
import { ROUTES } from '@moat/contracts/routes';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod/mini';
import { AppError } from '../../errors.ts';
import { tenantActorOf } from '../../plugins/app/session.ts';
import type { Visit } from './click-time.service.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 404: errorResponseSchema };

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const visitOf = (request: FastifyRequest): Visit => ({
  method: request.method,
  userAgent: header(request, 'user-agent') ?? '',
  acceptLanguage: header(request, 'accept-language'),
  accept: header(request, 'accept'),
  purpose: header(request, 'sec-purpose') ?? header(request, 'purpose') ?? header(request, 'x-purpose'),
  ip: request.ip,
});

/** The page a link that is not Moat's (or was changed) shows: plain words, nothing to click. */
const INVALID_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>This link is not valid</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:12vh 24px;color:#1f2937;background:#f8fafc}main{max-width:36rem;margin:auto}h1{font-size:1.4rem}@media (prefers-color-scheme:dark){body{color:#e5e7eb;background:#111827}}</style></head><body><main><h1>This link is not valid</h1><p>The link was changed after your organisation's mail protection wrote it, or it was not written by it. It was not opened.</p><p>If you expected this link to work, ask your IT or security team.</p></main></body></html>`;

/**
 * Click-time protection (issue 36). The rewritten link answers a clean click with a redirect at
 * once, and a suspicious or malicious one with the public pages' warning or block page; the
 * public calls give that page its words and let a reader go on past a warning; the admin calls
 * list the clicks and set the tenant's choices.
 */
export const clickTimeRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.clickTime;
  const tags = ['click-time'];
  // A wildcard, not a `:token` parameter: the router refuses parameters past 100 characters.
  const linkParams = z.object({ '*': z.string().check(z.maxLength(1_000)) });
  const linkQuery = z.object({ u: z.optional(z.string()) });

  const page = (verdict: string, token: string, url: string) =>
    `/#${ROUTES.emailActions.link}?${new URLSearchParams({ v: verdict, t: token, u: url })}`;
  app.route({
    method: 'GET',
    url: `${LINK_PATH_PREFIX}*`,
    schema: { hide: true, params: linkParams, querystring: linkQuery },
    handler: async (request, reply) => {
      const token = request.params['*'];
      const url = request.query.u ?? '';
      const result =
        url === '' ? { kind: 'invalid' as const } : await service.visit(token, url, visitOf(request));
      reply
        .header('cache-control', 'no-store')
        .header('referrer-policy', 'no-referrer')
        .header('x-robots-tag', 'noindex, nofollow');
      if (result.kind === 'invalid')
        return reply.code(400).type('text/html; charset=utf-8').send(INVALID_PAGE);
      return reply.redirect(result.kind === 'redirect' ? result.url : page(result.verdict, token, url), 303);
    },
  });

  app.get(
    CLICK_TIME_API.check,
    {
      schema: {
        tags,
        summary: 'What the warning or block page of a rewritten link shows (public)',
        querystring: linkCheckQuerySchema,
        response: { 200: linkCheckResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const found = await service.check(request.query.t, request.query.u);
      if (!found)
        throw new AppError('bad_request', 'This link is not valid: it was changed, or it is not one of ours');
      reply.header('cache-control', 'no-store');
      return found;
    },
  );

  app.post(
    CLICK_TIME_API.proceed,
    {
      schema: {
        tags,
        summary: 'Go on past the warning of a suspicious link (public)',
        body: linkCheckQuerySchema,
        response: { 200: linkContinueResponseSchema, ...errors },
      },
    },
    async (request) => {
      const done = await service.proceed(request.body.t, request.body.u, visitOf(request));
      if (done.ok) return { url: done.url };
      if (done.reason === 'invalid')
        throw new AppError('bad_request', 'This link is not valid: it was changed, or it is not one of ours');
      throw new AppError(
        'forbidden',
        done.reason === 'scanner'
          ? 'Link scanners cannot go on past a warning'
          : 'Your organisation does not let this link be opened',
      );
    },
  );

  app.get(
    CLICK_TIME_API.clicks,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: 'Clicks on rewritten links: by message, recipient, host or URL ("who clicked")',
        querystring: clicksQuerySchema,
        response: { 200: clicksResponseSchema, ...errors },
      },
    },
    async (request) => service.clicks(tenantActorOf(request).tenantId, request.query),
  );

  app.get(
    CLICK_TIME_API.settings,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: "The tenant's click-time choices",
        response: { 200: clickTimeSettingsSchema, ...errors },
      },
    },
    async (request) => service.settingsOf(tenantActorOf(request).tenantId),
  );

  app.put(
    CLICK_TIME_API.settings,
    {
      preHandler: app.requireAdmin,
      schema: {
        tags,
        summary: "Set the tenant's click-time choices",
        body: clickTimeSettingsSchema,
        response: { 200: clickTimeSettingsSchema, ...errors },
      },
    },
    async (request) => {
      const { tenantId, actor } = tenantActorOf(request);
      return service.saveSettings(tenantId, request.body, actor);
    },
  );
};
