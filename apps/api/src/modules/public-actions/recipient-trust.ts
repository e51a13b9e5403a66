import { randomBytes } from 'node:crypto';
import type { ServerKey } from '../../lib/server-key.ts';
import { signedListCookie } from '../../lib/signed-list-cookie.ts';

/** After a successful code check the browser is trusted for that recipient for 30 days. */
export const RECIPIENT_TRUST_COOKIE = 'moat_rcpt';
export const RECIPIENT_TRUST_MS = 30 * 86_400_000;
const MAX_ENTRIES = 10;

interface Entry {
  /** recipient email */
  r: string;
  /** tenant id */
  t: string;
  /** expiry, ms since epoch */
  x: number;
}

/** A signed HttpOnly cookie listing the recipients this browser proved, each with its expiry. */
export function createRecipientTrust(serverKey: ServerKey) {
  const cookies = signedListCookie<Entry>(serverKey, 'recipient-trust', {
    max: MAX_ENTRIES,
    live: (e, now) => e.x > now.getTime(),
  });
  return {
    trusts(cookie: string | undefined, recipient: string, tenantId: string, now: Date): boolean {
      return cookies.read(cookie, now).some((e) => e.r === recipient && e.t === tenantId);
    },
    /** The cookie value with this recipient added (or renewed). */
    add(cookie: string | undefined, recipient: string, tenantId: string, now: Date): string {
      const entries = cookies.read(cookie, now).filter((e) => !(e.r === recipient && e.t === tenantId));
      entries.push({ r: recipient, t: tenantId, x: now.getTime() + RECIPIENT_TRUST_MS });
      return cookies.write(entries);
    },
  };
}
export type RecipientTrust = ReturnType<typeof createRecipientTrust>;

/**
 * The browser that asks for a recipient code: a random id in an HttpOnly, SameSite cookie, set by
 * the first code request. A code is bound to it, so only the browser that asked can use the code
 * (or its attempts), and a code asked for elsewhere never replaces it.
 */
export const RECIPIENT_CLIENT_COOKIE = 'moat_rcpt_client';
export const RECIPIENT_CLIENT_MS = 86_400_000;
const CLIENT_ID = /^[A-Za-z0-9_-]{22}$/;

/** The cookie's id, if it is one this server could have made. */
export const clientIdOf = (cookie: string | undefined): string | undefined =>
  cookie && CLIENT_ID.test(cookie) ? cookie : undefined;
export const newClientId = (): string => randomBytes(16).toString('base64url');
