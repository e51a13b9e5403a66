/**
 * The input type of a contracts schema (what a request body may hold), without the web importing
 * zod itself: zod 4 schemas carry it as `_zod.input`.
 */
export type InputOf<S extends { _zod: { input: unknown } }> = S['_zod']['input'];
