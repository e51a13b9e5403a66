import type { ErrorResponse, FieldError } from '@moat/contracts/errors';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';

/** How many offending fields one answer lists, and how long a field's path may get in it. */
const MAX_DETAILS = 20;
const MAX_FIELD_LENGTH = 200;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;
/** Half of a UTF-16 surrogate pair without its other half (JSON can carry one as `"\ud800"`). */
const LONE_SURROGATE_AT = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

const NUL = 'contains a NUL character';
const NOT_UTF8 = 'is not valid UTF-8';
const LONE_SURROGATE = 'contains an unpaired surrogate';

/** What is wrong with a decoded string, or null: PostgreSQL text holds neither NUL nor half a UTF-16 pair. */
function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return NUL;
  if (LONE_SURROGATE_AT.test(value)) return LONE_SURROGATE;
  return null;
}

/**
 * What is wrong with a raw URL part, or null: every run of percent-escapes must decode as UTF-8
 * (`%FF`, `%C3%28` and an encoded surrogate `%ED%A0%80` do not) and nothing may decode to NUL.
 * A `%` not followed by two hex digits is left to the parsers, which keep it as text.
 */
function urlPartProblem(raw: string): string | null {
  if (raw.includes('\u0000')) return NUL;
  if (!raw.includes('%')) return null;
  for (const [run] of raw.matchAll(PERCENT_RUN)) {
    let decoded: string;
    try {
      decoded = strictUtf8.decode(Buffer.from(run.replaceAll('%', ''), 'hex'));
    } catch {
      return NOT_UTF8;
    }
    if (decoded.includes('\u0000')) return NUL;
  }
  return null;
}

/** A field name as the answer shows it: invisible characters escaped, bounded in length. */
function fieldName(path: string): string {
  const shown = JSON.stringify(path).slice(1, -1);
  return shown.length > MAX_FIELD_LENGTH ? `${shown.slice(0, MAX_FIELD_LENGTH)}…` : shown;
}

/** A lenient decode of a query key, only to name it in the answer. */
function queryKeyOf(raw: string): string {
  const spaced = raw.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/**
 * Faults in the URL: the params and query the router and query parser decoded, then the raw
 * escapes (the query parser keeps an undecodable `%FF` as text, so only the raw URL shows it).
 */
function urlProblems(request: FastifyRequest): FieldError[] {
  const found = [...walkStrings(request.params, 'params'), ...walkStrings(request.query, 'query')];
  const url = request.url;
  const queryAt = url.indexOf('?');
  const pathProblem = urlPartProblem(queryAt === -1 ? url : url.slice(0, queryAt));
  if (pathProblem && !found.some((error) => error.field.startsWith('params.'))) {
    found.push({ field: 'path', message: pathProblem });
  }
  if (queryAt !== -1) {
    for (const pair of url.slice(queryAt + 1).split('&')) {
      const equals = pair.indexOf('=');
      const key = equals === -1 ? pair : pair.slice(0, equals);
      const problem = urlPartProblem(key) ?? (equals === -1 ? null : urlPartProblem(pair.slice(equals + 1)));
      if (!problem) continue;
      const field = fieldName(`query.${queryKeyOf(key)}`);
      const named = found.some((error) => error.field === field || error.field.startsWith(`${field}.`));
      if (!named) found.push({ field, message: problem });
    }
  }
  return found.slice(0, MAX_DETAILS);
}

/**
 * Every string in a parsed value (objects and arrays at any depth, keys included) that PostgreSQL
 * could not store. Iterative, so a deeply nested body cannot overflow the stack.
 */
function walkStrings(root: unknown, rootPath: string): FieldError[] {
  const found: FieldError[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: rootPath }];
  while (stack.length > 0 && found.length < MAX_DETAILS) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) found.push({ field: fieldName(path), message: problem });
    } else if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}.${i}` });
    } else if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) {
      const entries = Object.entries(value);
      for (const [key] of entries) {
        const keyProblem = textProblem(key);
        if (keyProblem)
          found.push({ field: fieldName(path), message: `has a field name that ${keyProblem}` });
      }
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        stack.push({ value: child, path: `${path}.${key}` });
      }
    }
  }
  return found.slice(0, MAX_DETAILS);
}

function refuse(found: FieldError[]): AppError {
  const [first] = found;
  return new AppError(
    'invalid_characters',
    first ? `${first.field} ${first.message}` : 'The request contains characters that are not allowed',
    found,
  );
}

/**
 * One guard for every route: a NUL character or text that is not valid UTF-8 in the
 * URL, the params, the query or the body answers 400 `invalid_characters` before schema
 * validation and before any handler, naming the field. PostgreSQL refuses such text
 * (`invalid byte sequence for encoding "UTF8": 0x00`), which would otherwise surface as a 500.
 *
 * - onRequest: the raw URL's percent-escapes (the query parser keeps an undecodable `%FF` as
 *   text, so only the raw URL shows it), then the decoded params and query.
 * - JSON and plain-text bodies are read as bytes and decoded strictly; Node's lenient decoding
 *   would turn invalid bytes into U+FFFD silently. Fastify's own JSON parser then parses them, so
 *   the body limit, empty-body and malformed-JSON answers stay as they were.
 * - preValidation: every string of the parsed body, at any depth.
 *
 * A path whose escapes the router itself cannot decode never reaches a hook: Fastify answers it
 * through its `frameworkErrors` option, for which `answerFrameworkError` below is written.
 */
export const inputGuardPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const found = urlProblems(request);
    if (found.length > 0) throw refuse(found);
  });

  const jsonParser = app.getDefaultJsonParser(
    app.initialConfig.onProtoPoisoning ?? 'error',
    app.initialConfig.onConstructorPoisoning ?? 'error',
  );
  const decodeStrictly = (body: Buffer): string => {
    try {
      return strictUtf8.decode(body);
    } catch {
      throw refuse([{ field: 'body', message: NOT_UTF8 }]);
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    jsonParser(request, decodeStrictly(body as Buffer), done);
  });
  app.addContentTypeParser('text/plain', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, decodeStrictly(body as Buffer));
  });

  app.addHook('preValidation', async (request) => {
    const found = walkStrings(request.body, 'body');
    if (found.length > 0) throw refuse(found);
  });
});

/**
 * Fastify's `frameworkErrors` option: errors the router raises before any hook runs, chiefly a
 * path whose percent-escapes are not UTF-8 (`/api/v1/%FF/restore`). They leave in the one error
 * shape. The app's error handler is not reachable from here, so the answer is built in place.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const badUrl = error.code === 'FST_ERR_BAD_URL';
  const statusCode = badUrl ? 400 : (error.statusCode ?? 400);
  const body: ErrorResponse = {
    statusCode,
    code: badUrl ? 'invalid_characters' : statusCode >= 500 ? 'internal_error' : 'bad_request',
    message: badUrl ? `path ${NOT_UTF8}` : error.message,
    details: badUrl ? [{ field: 'path', message: NOT_UTF8 }] : null,
    reqId: request.id,
  };
  reply.header('x-request-id', request.id);
  return reply.code(statusCode).type('application/json; charset=utf-8').send(body);
}
