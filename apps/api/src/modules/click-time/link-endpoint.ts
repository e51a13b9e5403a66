import type { IncomingMessage, ServerResponse } from 'node:http';
import { LINK_PATH_PREFIX } from '@moat/contracts/click-time';
import { ROUTES } from '@moat/contracts/routes';
import type { ClickTime, Visit } from './click-time.service.ts';

/*
 * The rewritten link's click (issue 36), answered on Node's own request, before Fastify's request
 * cycle: a clean click is the one answer Moat gives at the rate of a crowd's clicks, and the cycle
 * (its hooks, logger, validation and reply) cost about as much as the click's own judgement. Its
 * answers are counted in the metrics as every other. What this does not take — a HEAD (a scanner's), a malformed path or query, a failure — goes on to the Fastify
 * route (`click-time.routes.ts`), which answers it in the API's usual ways.
 */

/** The longest token (base64url characters); the Fastify route refuses longer paths. */
const MAX_TOKEN_CHARS = 1_000;
const TOKEN = /^[A-Za-z0-9_-]+$/;

/** The page a link that is not Moat's (or was changed) shows: plain words, nothing to click. */
export const INVALID_LINK_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>This link is not valid</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:12vh 24px;color:#1f2937;background:#f8fafc}main{max-width:36rem;margin:auto}h1{font-size:1.4rem}@media (prefers-color-scheme:dark){body{color:#e5e7eb;background:#111827}}</style></head><body><main><h1>This link is not valid</h1><p>The link was changed after your organisation's mail protection wrote it, or it was not written by it. It was not opened.</p><p>If you expected this link to work, ask your IT or security team.</p></main></body></html>`;

/**
 * Headers of every answer to a rewritten link: never cached, never indexed, and no referrer, so
 * the site opened never learns the link it was opened through.
 */
export const LINK_ANSWER_HEADERS = {
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow',
} as const;

/** Where a warned or blocked click goes: the public pages' warning or block page. */
export const linkPage = (verdict: string, token: string, url: string) =>
  `/#${ROUTES.emailActions.link}?${new URLSearchParams({ v: verdict, t: token, u: url })}`;

const header = (request: IncomingMessage, name: string) => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** What a click's request tells about its visitor (the Fastify route's and this one's). */
export function visitOf(request: IncomingMessage, method: string, ip: string): Visit {
  return {
    method,
    userAgent: header(request, 'user-agent') ?? '',
    acceptLanguage: header(request, 'accept-language'),
    accept: header(request, 'accept'),
    purpose: header(request, 'sec-purpose') ?? header(request, 'purpose') ?? header(request, 'x-purpose'),
    ip,
  };
}

/** The token and URL of a `GET /l/<token>?u=<url>`; null for anything the Fastify route should judge. */
export function linkRequestOf(url: string): { token: string; url: string } | null {
  const question = url.indexOf('?');
  if (question === -1) return null;
  const token = url.slice(LINK_PATH_PREFIX.length, question);
  if (token.length === 0 || token.length > MAX_TOKEN_CHARS || !TOKEN.test(token)) return null;
  const query = new URLSearchParams(url.slice(question + 1));
  const links = query.getAll('u');
  if (links.length !== 1 || links[0] === '') return null;
  return { token, url: links[0]! };
}

const pick = (headers: Record<string, string>, names: string[]) =>
  Object.fromEntries(
    names.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]!]),
  );

export type LinkEndpoint = (
  request: IncomingMessage,
  response: ServerResponse,
  /** Fastify's own handling of the request, for what this one does not answer. */
  next: (request: IncomingMessage, response: ServerResponse) => void,
) => void;

export function createLinkEndpoint(deps: {
  clickTime: Pick<ClickTime, 'visit'>;
  /** The headers every answer of the server carries (security-headers.ts). */
  securityHeaders: Record<string, string>;
  /** The client's address as Fastify's `request.ip` reads it (the trusted proxies). */
  ipOf: (request: IncomingMessage) => string;
  /** An answer counted and timed as the metrics plugin counts every other. */
  count: (status: number, seconds: number) => void;
  log: { error: (details: object, message: string) => void };
}): LinkEndpoint {
  // The page carries every header the server's pages carry. A redirect has no document: a browser
  // never renders a 303's body, so the headers that govern a document (its script and frame
  // policies) are left off it, and each click's answer stays short for the browser and the server.
  const page = { ...deps.securityHeaders, ...LINK_ANSWER_HEADERS };
  const redirect = {
    ...LINK_ANSWER_HEADERS,
    ...pick(deps.securityHeaders, ['strict-transport-security', 'x-content-type-options']),
  };
  return (request, response, next) => {
    const found =
      request.method === 'GET' && request.url?.startsWith(LINK_PATH_PREFIX)
        ? linkRequestOf(request.url)
        : null;
    if (!found) return next(request, response);
    const started = process.hrtime.bigint();
    deps.clickTime.visit(found.token, found.url, visitOf(request, 'GET', deps.ipOf(request))).then(
      (result) => {
        if (result.kind === 'invalid') {
          response.writeHead(400, {
            ...page,
            'content-type': 'text/html; charset=utf-8',
            'content-length': Buffer.byteLength(INVALID_LINK_PAGE),
          });
          response.end(INVALID_LINK_PAGE);
        } else {
          const location =
            result.kind === 'redirect' ? result.url : linkPage(result.verdict, found.token, found.url);
          response.writeHead(303, { ...redirect, location, 'content-length': 0 });
          response.end();
        }
        deps.count(response.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
      },
      (error: Error) => {
        // The click could not be judged (the database, say): the route answers it as any failure.
        deps.log.error({ err: error.message }, 'a click could not be judged on the quick path');
        next(request, response);
      },
    );
  };
}
