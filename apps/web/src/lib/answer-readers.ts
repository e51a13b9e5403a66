/**
 * Pieces of the public bundle's answer readers (the shapes of `@moat/contracts`), without zod so
 * that it stays out of that bundle: `apiGet`/`apiPost` turn a mismatch (a throw here) into an
 * `invalid_response` error, as with the contracts' schemas.
 */
export type Fields = Record<string, unknown>;

export function object(value: unknown, what: string): Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${what}: not an object`);
  }
  return value as Fields;
}

export function field<T>(fields: Fields, name: string, what: string, is: (value: unknown) => value is T): T {
  const value = fields[name];
  if (!is(value)) throw new TypeError(`${what}: bad ${name}`);
  return value;
}

export const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';
export const isString = (value: unknown): value is string => typeof value === 'string';
export const isInteger = (value: unknown): value is number => Number.isSafeInteger(value);
export const isOptionalInteger = (value: unknown): value is number | undefined =>
  value === undefined || Number.isSafeInteger(value);
