import { errorResponseSchema } from '@moat/contracts/errors';
import {
  actionNameBodySchema,
  actionResponseSchema,
  commentaryBodySchema,
  entityExistsResponseSchema,
  identificationResponseSchema,
  PUBLIC_ACTION_ROUTES,
  publicMessageParamsSchema,
  publicQuerySchema,
  publicTypeParamsSchema,
  restoreResponseSchema,
  verifyRecipientResponseSchema,
} from '@moat/contracts/quarantine';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';
import type { HitRequest } from '../../lib/counters.ts';
import { CodeMailsLimited, type PublicAnswer, type PublicCall } from './public-actions.service.ts';
import {
  clientIdOf,
  RECIPIENT_CLIENT_COOKIE,
  RECIPIENT_CLIENT_MS,
  RECIPIENT_TRUST_COOKIE,
  RECIPIENT_TRUST_MS,
} from './recipient-trust.ts';

const errors = {
  400: errorResponseSchema,
  403: errorResponseSchema,
  404: errorResponseSchema,
  405: errorResponseSchema,
  429: errorResponseSchema,
};
/**
 * Public limits that fit real companies (issue 9): each call is limited per message link (the
 * `msg`/`id` of the notification), so one link cannot be hammered, and per client address only
 * generously, so 200 recipients behind one company NAT can each restore their own mail. Codes
 * are bounded on their own: each belongs to the browser that asked for it (3 attempts, a resend
 * wait), and one address is mailed at most `CODE_MAILS` codes an hour.
 */
export const PUBLIC_LIMITS = {
  /** Every public call from one address, per minute. */
  perAddress: 3_000,
} as const;

/** The link a public call is about: the message (`msg`) or the action (`id`) of the notification. */
const linkOf = (request: FastifyRequest): string | undefined => {
  const params = request.params as { msg?: string };
  const query = request.query as { msg?: string; id?: string } | undefined;
  return params.msg ?? query?.msg ?? query?.id;
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Calls a minute allowed per message link and client address (public actions). */
    perLinkPerMinute?: number;
  }
}
const perLinkPerMinute = (max: number) => ({ perLinkPerMinute: max });

/** The public calls of SPEC §7, at exactly its paths. No session: the message's opaque id is the key. */
export const publicActionsRoutes: FastifyPluginAsyncZod = async (app) => {
  const service = app.services.publicActions;
  // Both limits, counted together in the counters every node shares (one round trip): the route's
  // own per link and address (whoever else holds a link cannot use up its recipient's budget), and
  // one generous count per address over all public calls. (Two @fastify/rate-limit hooks did not
  // work: the plugin skipped the route's limit once the plugin-wide one had run.)
  app.addHook('onRequest', async (request, reply) => {
    const perLink = request.routeOptions.config.perLinkPerMinute;
    const link = linkOf(request);
    const keys: HitRequest[] = [
      { key: `public-address:${request.ip}`, windowMs: 60_000, limit: PUBLIC_LIMITS.perAddress },
    ];
    if (perLink) {
      keys.push({
        key: link ? `public-link:${link}:${request.ip}` : `public-nolink:${request.ip}`,
        windowMs: 60_000,
        limit: perLink,
      });
    }
    const [address, perLinkCount] = await app.services.counters.hitMany(keys);
    const over =
      address!.count > PUBLIC_LIMITS.perAddress
        ? address
        : perLink && perLinkCount!.count > perLink
          ? perLinkCount
          : null;
    if (over) {
      reply.header('retry-after', String(Math.max(1, Math.ceil(over.ttlMs / 1000))));
      throw new AppError('rate_limited', 'Too many requests, try again later');
    }
  });
  const secure = app.config.secureCookies;

  const callOf = (request: FastifyRequest): PublicCall => {
    const params = request.params as { type: string };
    const query = request.query as { msg?: string; id?: string; email?: string; code?: string };
    return {
      type: params.type,
      query: {
        msg: query.msg,
        id: query.msg === undefined ? query.id : undefined,
        email: query.email,
        code: query.code,
      },
      trustCookie: request.cookies[RECIPIENT_TRUST_COOKIE],
      clientId: clientIdOf(request.cookies[RECIPIENT_CLIENT_COOKIE]),
      ip: request.ip ?? null,
    };
  };
  function answer<T>(reply: FastifyReply, result: PublicAnswer<T>): T {
    const cookie = { httpOnly: true, secure, sameSite: 'strict', path: '/api/v1' } as const;
    if (result.trustCookie) {
      reply.setCookie(RECIPIENT_TRUST_COOKIE, result.trustCookie, {
        ...cookie,
        maxAge: RECIPIENT_TRUST_MS / 1000,
      });
    }
    if (result.clientId) {
      reply.setCookie(RECIPIENT_CLIENT_COOKIE, result.clientId, {
        ...cookie,
        maxAge: RECIPIENT_CLIENT_MS / 1000,
      });
    }
    return result.body;
  }
  const tags = ['public pages'];

  app.get(
    PUBLIC_ACTION_ROUTES.entityExists,
    {
      schema: {
        tags,
        summary: 'Whether a held message can still be acted on',
        params: publicMessageParamsSchema,
        response: { 200: entityExistsResponseSchema, ...errors },
      },
      config: perLinkPerMinute(120),
    },
    async (request) => ({ isExists: await service.entityExists(request.params.type, request.params.msg) }),
  );

  app.post(
    PUBLIC_ACTION_ROUTES.identificationNeeded,
    {
      schema: {
        tags,
        summary: 'Whether the recipient must prove their address (status true)',
        params: publicTypeParamsSchema,
        querystring: publicQuerySchema,
        body: actionNameBodySchema,
        response: { 200: identificationResponseSchema, ...errors },
      },
      config: perLinkPerMinute(60),
    },
    async (request) => ({ status: await service.identificationNeeded(callOf(request)) }),
  );

  app.post(
    PUBLIC_ACTION_ROUTES.verifyRecipient,
    {
      schema: {
        tags,
        summary:
          "Email a 6-digit code, bound to this browser, to the message's recipient (other addresses: same answer, no code); 429 past 5 an hour per link or 10 per address",
        params: publicTypeParamsSchema,
        querystring: publicQuerySchema,
        body: actionNameBodySchema,
        response: { 200: verifyRecipientResponseSchema, ...errors },
      },
      config: perLinkPerMinute(10),
    },
    async (request, reply) => {
      try {
        return answer(reply, await service.verifyRecipient(callOf(request)));
      } catch (error) {
        if (error instanceof CodeMailsLimited) reply.header('retry-after', String(error.retryAfterS));
        throw error;
      }
    },
  );

  app.get(
    PUBLIC_ACTION_ROUTES.userResponse,
    {
      schema: {
        tags,
        summary: "The action page: a proven recipient performs the notification's action (once)",
        params: publicTypeParamsSchema,
        querystring: publicQuerySchema,
        response: { 200: actionResponseSchema, ...errors },
      },
      config: perLinkPerMinute(30),
    },
    async (request, reply) => answer(reply, await service.userResponse(callOf(request))),
  );

  app.get(
    PUBLIC_ACTION_ROUTES.restoreStatus,
    {
      schema: {
        tags,
        summary: 'Where the restore of an email stands',
        params: publicMessageParamsSchema,
        querystring: publicQuerySchema,
        response: { 200: restoreResponseSchema, ...errors },
      },
      config: perLinkPerMinute(120),
    },
    async (request) => service.status(request.params.type, request.params.msg, 'email'),
  );

  /** What the restore calls share: the page's query, and the restore answer. */
  const restoreSchema = (summary: string) => ({
    tags,
    summary,
    params: publicTypeParamsSchema,
    querystring: publicQuerySchema,
    response: { 200: restoreResponseSchema, ...errors },
  });

  const restoreGets = [
    {
      path: PUBLIC_ACTION_ROUTES.restore,
      kind: 'email',
      summary: 'Check the code; in automatic mode restore the email (once) for a proven recipient',
    },
    {
      path: PUBLIC_ACTION_ROUTES.restoreOriginal,
      kind: 'original',
      summary: 'Check the code; in automatic mode restore the original attachments (once)',
    },
  ] as const;
  for (const route of restoreGets) {
    app.get(
      route.path,
      {
        schema: restoreSchema(route.summary),
        config: perLinkPerMinute(30),
      },
      async (request, reply) => answer(reply, await service.restoreGet(callOf(request), route.kind)),
    );
  }

  const restorePosts = [
    {
      path: PUBLIC_ACTION_ROUTES.restore,
      kind: 'email',
      summary: 'Ask the admin to release the email with a message (restores at once in automatic mode)',
    },
    {
      path: PUBLIC_ACTION_ROUTES.phishRequestRestore,
      kind: 'email',
      summary: 'Ask the admin to release an email held as phishing, with a message',
    },
    {
      path: PUBLIC_ACTION_ROUTES.restoreOriginal,
      kind: 'original',
      summary: 'Ask the admin to restore the original attachments, with a message',
    },
  ] as const;
  for (const route of restorePosts) {
    app.post(
      route.path,
      {
        schema: { ...restoreSchema(route.summary), body: commentaryBodySchema },
        config: perLinkPerMinute(20),
      },
      async (request, reply) =>
        answer(reply, await service.restorePost(callOf(request), route.kind, request.body.commentary)),
    );
  }
};
