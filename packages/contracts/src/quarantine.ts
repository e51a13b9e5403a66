import { z } from 'zod';
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
  .object({
    msg: z.string().max(200).optional(),
    id: z.string().max(200).optional(),
    mode: z.string().max(50).optional(),
    email: z.string().max(254).optional(),
    code: z.string().max(20).optional(),
    rnd: z.string().max(50).optional(),
  })
  .catchall(z.string().max(500))
  .describe('Query parameters (inline: OpenAPI parameters cannot be references)');

/** Path parameters of the public calls: the notification's `type` (SPEC §7). */
export const publicTypeParamsSchema = z.object({
  type: z.string().regex(/^[a-z0-9_]{1,50}$/, 'unknown type'),
});
/** Path parameters of the public calls about one message: `type` and the opaque `msg`. */
export const publicMessageParamsSchema = publicTypeParamsSchema.extend({ msg: z.string().max(200) });

export const actionNameBodySchema = z
  .object({ action_name: z.enum(PUBLIC_ACTION_NAMES) })
  .meta({ id: 'ActionNameBody' });
export type ActionNameBody = z.infer<typeof actionNameBodySchema>;

/** POST /api/v1/{type}/identification_needed */
export const identificationResponseSchema = z
  .object({ status: z.boolean() })
  .meta({ id: 'IdentificationResponse' });

/** POST /api/v1/{type}/verify_recipient */
export const verifyRecipientResponseSchema = z
  .object({ status: z.enum(['ok', 'error']), wait_time: z.number().int(), message: z.string() })
  .meta({ id: 'VerifyRecipientResponse' });

/** GET /api/v1/{type}/user_response */
export const actionResponseSchema = z
  .object({
    success: z.boolean(),
    primary_text: z.string(),
    secondary_text: z.string(),
    attempts_left: z.number().int().optional(),
  })
  .meta({ id: 'ActionResponse' });

/** restore, restore status, phish_request_restore, restore_original */
export const restoreResponseSchema = z
  .object({
    status: z.enum(RESTORE_STATUSES),
    message: z.string(),
    attempts_left: z.number().int().optional(),
  })
  .meta({ id: 'RestoreResponse' });

export const commentaryBodySchema = z
  .object({ commentary: z.string().max(10_000) })
  .meta({ id: 'CommentaryBody' });

/** GET /api/v1/{type}/{msg}/entity_exists */
export const entityExistsResponseSchema = z
  .object({ isExists: z.boolean() })
  .meta({ id: 'EntityExistsResponse' });
