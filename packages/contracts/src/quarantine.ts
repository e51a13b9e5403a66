import { z } from 'zod';

export const VERDICTS = ['phishing', 'malware', 'spam', 'suspicious'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** How a recipient gets a held message back (DESIGN §4 "Restore modes"); `none`: not restorable. */
export const RESTORE_MODES = [
  'automatic',
  'request',
  'admin_approve',
  'phish_request_restore',
  'none',
] as const;
export type RestoreMode = (typeof RESTORE_MODES)[number];

/** The policy every tenant starts with; the admin console edits it. */
export const DEFAULT_RESTORE_POLICY: Record<Verdict, { mode: RestoreMode; identificationRequired: boolean }> =
  {
    spam: { mode: 'automatic', identificationRequired: true },
    suspicious: { mode: 'request', identificationRequired: true },
    phishing: { mode: 'phish_request_restore', identificationRequired: true },
    malware: { mode: 'none', identificationRequired: true },
  };

export const RESTORE_STATUSES = ['quarantined', 'requested', 'approved', 'declined', 'restored'] as const;
export type RestoreStatus = (typeof RESTORE_STATUSES)[number];

/** Free text a recipient sends with a request: tags and control characters removed, trimmed. */
export function sanitiseCommentary(value: string): string {
  return (
    value
      .replace(/<[^>]*>/g, ' ')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
      .replace(/[ \t]+/g, ' ')
      .trim()
      .slice(0, 2000)
  );
}

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

export const actionNameBodySchema = z
  .object({ action_name: z.enum(['email_restore', 'email_action', 'restore_original']) })
  .meta({ id: 'ActionNameBody' });

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
