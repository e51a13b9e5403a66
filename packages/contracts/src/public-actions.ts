/**
 * What the public pages (SPEC §2.2) share with the API, without zod: restore modes and statuses,
 * the public calls' paths, the pages' parameters and modes, and the commentary rule. The public
 * pages' bundle imports this module alone; `./quarantine.ts` re-exports it with the schemas.
 */
import { fillPath } from './api-paths.ts';

/**
 * Email format of the public pages (SPEC §5): local part of letters, digits and . _ % + -,
 * then @, a domain, a dot and two or more letters.
 */
export const PUBLIC_EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}$/;

/** How a recipient gets a held message back (DESIGN §4 "Restore modes"); `none`: not restorable. */
export const RESTORE_MODES = [
  'automatic',
  'request',
  'admin_approve',
  'phish_request_restore',
  'none',
] as const;
export type RestoreMode = (typeof RESTORE_MODES)[number];

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
