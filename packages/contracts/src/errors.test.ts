import { describe, expect, it } from 'vitest';
import { errorResponseSchema, isErrorResponse } from './errors.ts';

const valid = {
  statusCode: 400,
  code: 'validation_error',
  message: 'Invalid body',
  details: [{ field: 'body.email', message: 'invalid_email' }],
  reqId: 'req-1',
};

describe('isErrorResponse (without zod) agrees with errorResponseSchema', () => {
  const cases: Array<[string, unknown]> = [
    ['a complete error', valid],
    ['details null', { ...valid, details: null }],
    ['an unknown code', { ...valid, code: 'teapot' }],
    ['a fractional status', { ...valid, statusCode: 400.5 }],
    ['a status past the safe integers', { ...valid, statusCode: 2 ** 53 }],
    ['a status as text', { ...valid, statusCode: '400' }],
    ['no reqId', { ...valid, reqId: undefined }],
    ['details not a list', { ...valid, details: 'x' }],
    ['a detail without message', { ...valid, details: [{ field: 'body.email' }] }],
    ['a detail that is not an object', { ...valid, details: ['body.email'] }],
    ['a list', [valid]],
    ['null', null],
    ['text', 'error'],
  ];
  it.each(cases)('%s', (_name, value) => {
    expect(isErrorResponse(value)).toBe(errorResponseSchema.safeParse(value).success);
  });
});
