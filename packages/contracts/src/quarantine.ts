import { z } from 'zod/mini';
import { PUBLIC_ACTION_NAMES, RESTORE_STATUSES, type RestoreMode } from './public-actions.ts';

export const VERDICTS = ['phishing', 'malware', 'spam', 'suspicious'] as const;
export type Verdict = (typeof VERDICTS)[number];

export * from './public-actions.ts';

/** The policy every tenant starts with; the admin console edits it. */
export const DEFAULT_RESTORE_POLICY: Record<Verdict, { mode: RestoreMode; identificationRequired: boolean }> =
  {
    spam: { mode: 'automatic', identificationRequired: true },
    suspicious: { mode: 'request', identificationRequired: true },
    phishing: { mode: 'phish_request_restore', identificationRequired: true },
    malware: { mode: 'none', identificationRequired: true },
  };

/** Query of the public calls: the page's parameters (all strings). */
export const publicQuerySchema = z
  .catchall(
    z.object({
      msg: z.optional(z.string().check(z.maxLength(200))),
      id: z.optional(z.string().check(z.maxLength(200))),
      mode: z.optional(z.string().check(z.maxLength(50))),
      email: z.optional(z.string().check(z.maxLength(254))),
      code: z.optional(z.string().check(z.maxLength(20))),
      rnd: z.optional(z.string().check(z.maxLength(50))),
    }),
    z.string().check(z.maxLength(500)),
  )
  .register(z.globalRegistry, {
    description: 'Query parameters (inline: OpenAPI parameters cannot be references)',
  });

/** Path parameters of the public calls: the notification's `type` (SPEC §7). */
export const publicTypeParamsSchema = z.object({
  type: z.string().check(z.regex(/^[a-z0-9_]{1,50}$/, 'unknown type')),
});
/** Path parameters of the public calls about one message: `type` and the opaque `msg`. */
export const publicMessageParamsSchema = z.extend(publicTypeParamsSchema, {
  msg: z.string().check(z.maxLength(200)),
});

export const actionNameBodySchema = z
  .object({ action_name: z.enum(PUBLIC_ACTION_NAMES) })
  .register(z.globalRegistry, { id: 'ActionNameBody' });
export type ActionNameBody = z.infer<typeof actionNameBodySchema>;

/** POST /api/v1/{type}/identification_needed */
export const identificationResponseSchema = z
  .object({ status: z.boolean() })
  .register(z.globalRegistry, { id: 'IdentificationResponse' });

/** POST /api/v1/{type}/verify_recipient */
export const verifyRecipientResponseSchema = z
  .object({ status: z.enum(['ok', 'error']), wait_time: z.int(), message: z.string() })
  .register(z.globalRegistry, { id: 'VerifyRecipientResponse' });

/** GET /api/v1/{type}/user_response */
export const actionResponseSchema = z
  .object({
    success: z.boolean(),
    primary_text: z.string(),
    secondary_text: z.string(),
    attempts_left: z.optional(z.int()),
  })
  .register(z.globalRegistry, { id: 'ActionResponse' });

/** restore, restore status, phish_request_restore, restore_original */
export const restoreResponseSchema = z
  .object({
    status: z.enum(RESTORE_STATUSES),
    message: z.string(),
    attempts_left: z.optional(z.int()),
  })
  .register(z.globalRegistry, { id: 'RestoreResponse' });

export const commentaryBodySchema = z
  .object({ commentary: z.string().check(z.maxLength(10_000)) })
  .register(z.globalRegistry, { id: 'CommentaryBody' });

/** GET /api/v1/{type}/{msg}/entity_exists */
export const entityExistsResponseSchema = z
  .object({ isExists: z.boolean() })
  .register(z.globalRegistry, { id: 'EntityExistsResponse' });
