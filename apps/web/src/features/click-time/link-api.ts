import { CLICK_TIME_API, CLICK_VERDICTS, type LinkCheckResponse } from '@moat/contracts/click-time';
import { field, isBoolean, isString, object } from '../../lib/answer-readers';
import { apiGet, apiPost } from '../../lib/http';

/*
 * The public calls of a rewritten link's warning and block page (click-time protection), read
 * without zod so that it stays out of the public bundle.
 */
const isVerdict = (value: unknown): value is LinkCheckResponse['verdict'] =>
  typeof value === 'string' && (CLICK_VERDICTS as readonly string[]).includes(value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

const checkAnswer = {
  parse(value: unknown): LinkCheckResponse {
    const fields = object(value, 'LinkCheck');
    return {
      verdict: field(fields, 'verdict', 'LinkCheck', isVerdict),
      url: field(fields, 'url', 'LinkCheck', isString),
      host: field(fields, 'host', 'LinkCheck', isString),
      readableHost: field(fields, 'readableHost', 'LinkCheck', isString),
      reasons: field(fields, 'reasons', 'LinkCheck', isStrings),
      canContinue: field(fields, 'canContinue', 'LinkCheck', isBoolean),
    };
  },
};
const continueAnswer = {
  parse: (value: unknown) => ({ url: field(object(value, 'LinkContinue'), 'url', 'LinkContinue', isString) }),
};

/** GET: what the page shows for this link. */
export const checkLink = (t: string, u: string, signal?: AbortSignal) =>
  apiGet(CLICK_TIME_API.check, { query: { t, u }, signal, schema: checkAnswer });

/** POST: the reader goes on past the warning; the URL to open. */
export const continueToLink = (t: string, u: string) =>
  apiPost(CLICK_TIME_API.proceed, { t, u }, { schema: continueAnswer });
