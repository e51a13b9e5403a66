/**
 * Public email-actions pages (SPEC §2.2, §7): required query parameters, action names and the
 * per-message API paths the web calls. Added by the web.
 */
export const PUBLIC_ACTION_NAMES = ['email_restore', 'email_action', 'restore_original'] as const;
export type PublicActionName = (typeof PUBLIC_ACTION_NAMES)[number];

/** Query parameters each page needs; without them it shows its "not found" message. */
export const REQUIRED_ACTION_PARAMS = {
  restoreEmail: ['type', 'msg'],
  action: ['type', 'id'],
  restoreOriginal: ['type', 'msg'],
} as const satisfies Record<string, readonly string[]>;

const base = (type: string) => `/api/v1/${encodeURIComponent(type)}`;

/** Paths under `/api/v1/{type}/…`; `type` and `msg` are URL-encoded. */
export const PUBLIC_ACTION_API = {
  identificationNeeded: (type: string) => `${base(type)}/identification_needed`,
  verifyRecipient: (type: string) => `${base(type)}/verify_recipient`,
  userResponse: (type: string) => `${base(type)}/user_response`,
  entityExists: (type: string, msg: string) => `${base(type)}/${encodeURIComponent(msg)}/entity_exists`,
  restore: (type: string) => `${base(type)}/restore`,
  restoreStatus: (type: string, msg: string) => `${base(type)}/restore/${encodeURIComponent(msg)}/status`,
  phishRequestRestore: (type: string) => `${base(type)}/phish_request_restore`,
  restoreOriginal: (type: string) => `${base(type)}/restore_original`,
} as const;

/**
 * Page modes (the `mode` query parameter) in which the recipient asks the admin with a message;
 * any other value restores automatically (SPEC §2.2, §4 "Public pages").
 */
export const REQUEST_PAGE_MODES = ['request', 'admin_approve', 'phish_request_restore'] as const;
export type RequestPageMode = (typeof REQUEST_PAGE_MODES)[number];

export function requestModeOf(mode: string | null | undefined): RequestPageMode | null {
  return (REQUEST_PAGE_MODES as readonly string[]).includes(mode ?? '') ? (mode as RequestPageMode) : null;
}

/** The `code` a restore-original request carries (SPEC §7): `ap` in phish_request_restore mode, else `av`. */
export function restoreOriginalRequestCode(mode: RequestPageMode | null): 'av' | 'ap' {
  return mode === 'phish_request_restore' ? 'ap' : 'av';
}

/** POST /api/v1/{type}/identification_needed: a truthy status means the recipient must verify. */
export interface IdentificationNeededBody {
  action_name: PublicActionName;
}
export interface IdentificationNeededResponse {
  status: unknown;
}
