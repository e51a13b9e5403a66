import type { ErrorCode, ErrorResponse, FieldError } from '@moat/contracts/errors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError } from '../../errors.ts';

/** Fastify's own client errors, by their code, and what we answer for them. */
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'bad_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'bad_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'bad_request',
  FST_ERR_BAD_URL: 'bad_request',
  FST_ERR_ASYNC_CONSTRAINT: 'bad_request',
};

function send(
  reply: FastifyReply,
  request: FastifyRequest,
  status: number,
  code: ErrorCode,
  message: string,
  details: FieldError[] | null,
) {
  const body: ErrorResponse = { statusCode: status, code, message, details, reqId: request.id };
  return reply.code(status).type('application/json; charset=utf-8').send(body);
}

/**
 * One error handler for the whole API: every error leaves as `{statusCode, code, message,
 * details, reqId}`. Unknown errors become a plain 500 and are logged with their stack.
 */
export const errorHandlerPlugin = fp(async (app: FastifyInstance) => {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof AppError) {
      return send(reply, request, error.statusCode, error.code, error.message, error.details);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details: FieldError[] = error.validation.map((issue) => ({
        field: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)]
          .filter(Boolean)
          .join('.'),
        message: issue.message ?? 'invalid',
      }));
      return send(reply, request, 400, 'validation_error', 'The request is not valid', details);
    }
    if (error.statusCode === 429) {
      return send(reply, request, 429, 'rate_limited', 'Too many requests, try again later', null);
    }
    const mapped = error.code ? FASTIFY_CODES[error.code] : undefined;
    if (mapped) {
      const status = error.statusCode ?? 400;
      return send(reply, request, status, mapped, error.message, null);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      return send(reply, request, error.statusCode, 'bad_request', error.message, null);
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, request, 500, 'internal_error', 'Internal server error', null);
  });

  app.setNotFoundHandler((request, reply) => {
    // A browser asking for a page that is not an API path: the SPA's hash router decides (it
    // shows the legacy redirects and the not-found page). The target is always same-origin.
    const accept = request.headers.accept ?? '';
    const path = request.url.split('?')[0] ?? '';
    if (
      request.method === 'GET' &&
      accept.includes('text/html') &&
      !path.startsWith('/api/') &&
      !path.startsWith('/internal/')
    ) {
      const target = `/#${request.url.startsWith('/') ? request.url : `/${request.url}`}`;
      return reply.redirect(target.replace(/^\/#\/+/, '/#/'), 302);
    }
    return send(reply, request, 404, 'not_found', `Route ${request.method} ${path} not found`, null);
  });
});
