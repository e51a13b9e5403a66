import { z } from 'zod';
import { fillPath } from './api-paths.ts';

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

/** What became of a restore request (the `restore_requests.status` column). */
export const RESTORE_REQUEST_STATUSES = ['requested', 'approved', 'declined', 'restored'] as const;
export type RestoreRequestStatus = (typeof RESTORE_REQUEST_STATUSES)[number];

/** Where the restore of a held message stands: `quarantined` until someone asks. */
export const RESTORE_STATUSES = ['quarantined', ...RESTORE_REQUEST_STATUSES] as const;
export type RestoreStatus = (typeof RESTORE_STATUSES)[number];

/** email: the whole message; original: the message with its original attachments. */
export const RESTORE_KINDS = ['email', 'original'] as const;
export type RestoreKind = (typeof RESTORE_KINDS)[number];

/** The public pages' calls of SPEC §7: the patterns the API registers (`PUBLIC_ACTION_API` fills them). */
export const PUBLIC_ACTION_ROUTES = {
  identificationNeeded: '/api/v1/:type/identification_needed',
  verifyRecipient: '/api/v1/:type/verify_recipient',
  userResponse: '/api/v1/:type/user_response',
  entityExists: '/api/v1/:type/:msg/entity_exists',
  restore: '/api/v1/:type/restore',
  restoreStatus: '/api/v1/:type/restore/:msg/status',
  phishRequestRestore: '/api/v1/:type/phish_request_restore',
  restoreOriginal: '/api/v1/:type/restore_original',
} as const;

/** The paths the web calls under `/api/v1/{type}/…`; `type` and `msg` are URL-encoded. */
export const PUBLIC_ACTION_API = {
  identificationNeeded: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.identificationNeeded, { type }),
  verifyRecipient: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.verifyRecipient, { type }),
  userResponse: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.userResponse, { type }),
  entityExists: (type: string, msg: string) => fillPath(PUBLIC_ACTION_ROUTES.entityExists, { type, msg }),
  restore: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.restore, { type }),
  restoreStatus: (type: string, msg: string) => fillPath(PUBLIC_ACTION_ROUTES.restoreStatus, { type, msg }),
  phishRequestRestore: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.phishRequestRestore, { type }),
  restoreOriginal: (type: string) => fillPath(PUBLIC_ACTION_ROUTES.restoreOriginal, { type }),
} as const;

/** The public pages' actions (SPEC §2.2, §7): the `action_name` of identification and verification. */
export const PUBLIC_ACTION_NAMES = ['email_restore', 'email_action', 'restore_original'] as const;
export type PublicActionName = (typeof PUBLIC_ACTION_NAMES)[number];

/** Query parameters each public page needs; without them it shows its "not found" message. */
export const REQUIRED_ACTION_PARAMS = {
  restoreEmail: ['type', 'msg'],
  action: ['type', 'id'],
  restoreOriginal: ['type', 'msg'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Page modes (the `mode` query parameter) in which the recipient asks the admin with a message;
 * any other value restores automatically (SPEC §2.2, §4 "Public pages").
 */
export const REQUEST_PAGE_MODES = [
  'request',
  'admin_approve',
  'phish_request_restore',
] as const satisfies readonly RestoreMode[];
export type RequestPageMode = (typeof REQUEST_PAGE_MODES)[number];

export function requestModeOf(mode: string | null | undefined): RequestPageMode | null {
  return (REQUEST_PAGE_MODES as readonly string[]).includes(mode ?? '') ? (mode as RequestPageMode) : null;
}

/** The `code` a restore-original request carries (SPEC §7): `ap` in phish_request_restore mode, else `av`. */
export function restoreOriginalRequestCode(mode: RequestPageMode | null): 'av' | 'ap' {
  return mode === 'phish_request_restore' ? 'ap' : 'av';
}

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
