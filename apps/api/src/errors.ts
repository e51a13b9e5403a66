import { ERROR_STATUS, type ErrorCode, type FieldError } from '@moat/contracts/errors';

/** An error the API answers on purpose: its code decides the HTTP status. */
export class AppError extends Error {
  override name = 'AppError';
  readonly statusCode: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldError[] | null = null,
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const notFound = (message = 'Not found') => new AppError('not_found', message);
export const badRequest = (message: string, details: FieldError[] | null = null) =>
  new AppError('bad_request', message, details);
export const forbidden = (message: string) => new AppError('forbidden', message);
