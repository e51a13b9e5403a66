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
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod/mini';
import { AppError } from '../../errors.ts';
import { tenantActorOf } from '../../plugins/app/session.ts';
import { INVALID_LINK_PAGE, LINK_ANSWER_HEADERS, linkPage, visitOf } from './link-endpoint.ts';

const errors = { 400: errorResponseSchema, 403: errorResponseSchema, 404: errorResponseSchema };

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

  app.route({
    method: 'GET',
    url: `${LINK_PATH_PREFIX}*`,
    schema: { hide: true, params: linkParams, querystring: linkQuery },
    handler: async (request, reply) => {
      const token = request.params['*'];
      const url = request.query.u ?? '';
      const result =
        url === ''
          ? { kind: 'invalid' as const }
          : await service.visit(token, url, visitOf(request.raw, request.method, request.ip));
      reply.headers(LINK_ANSWER_HEADERS);
      if (result.kind === 'invalid')
        return reply.code(400).type('text/html; charset=utf-8').send(INVALID_LINK_PAGE);
      return reply.redirect(
        result.kind === 'redirect' ? result.url : linkPage(result.verdict, token, url),
        303,
      );
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
      const done = await service.proceed(
        request.body.t,
        request.body.u,
        visitOf(request.raw, request.method, request.ip),
      );
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
