import { z } from 'zod/mini';
import { ERROR_CODES, type ErrorResponse, type FieldError } from './error-codes.ts';

export * from './error-codes.ts';

export const errorCodeSchema = z.enum(ERROR_CODES);

export const fieldErrorSchema = z.object({
  field: z
    .string()
    .register(z.globalRegistry, { description: 'Dotted path of the failing field, e.g. "body.email"' }),
  message: z.string(),
});

/** Every error the API sends has exactly this shape. */
export const errorResponseSchema = z
  .object({
    statusCode: z.int(),
    code: errorCodeSchema,
    message: z.string(),
    details: z.nullable(z.array(fieldErrorSchema)),
    reqId: z.string(),
  })
  .register(z.globalRegistry, { id: 'ErrorResponse' });

/** Compile-time check: the schemas and the interfaces of ./error-codes.ts are the same shapes. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemasMatchInterfaces: Same<z.infer<typeof errorResponseSchema>, ErrorResponse> &
  Same<z.infer<typeof fieldErrorSchema>, FieldError> = true;
void schemasMatchInterfaces;
