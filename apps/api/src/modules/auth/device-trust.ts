import { randomBytes } from 'node:crypto';
import type { ServerKey } from '../../lib/server-key.ts';
import { signedListCookie } from '../../lib/signed-list-cookie.ts';
import type { UserRow } from '../users/users.repo.ts';

/** A browser that signed in to an account is known to it for 90 days after its last sign-in. */
export const DEVICE_TRUST_MS = 90 * 86_400_000;
/** The accounts one browser is known to (the oldest sign-in goes first). */
const MAX_ACCOUNTS = 5;

interface Entry {
  /** The account, as a MAC of its id (the cookie does not show the id). */
  a: string;
  /** This browser's id for the account: its failures are counted under it (throttle `deviceKey`). */
  d: string;
  /** Signed in at, ms since epoch. */
  i: number;
}

/**
 * The device cookie (OWASP "device cookies"): set at each successful sign-in, signed with the
 * server key, naming the accounts this browser signed in to. A browser that shows it for the
 * account it signs in to is not asked for the account's stronger checks (an account attacked
 * from elsewhere, a lock of its address on the account); it is no use for any other account,
 * once the password changed since, or when forged.
 */
export function createDeviceTrust(serverKey: Pick<ServerKey, 'derive'>) {
  const cookies = signedListCookie<Entry>(serverKey, 'device-trust', {
    max: MAX_ACCOUNTS,
    live: (e, now) => e.i + DEVICE_TRUST_MS > now.getTime(),
  });
  const accountOf = (userId: string) => cookies.mac(`account:${userId}`).slice(0, 22);

  return {
    /** This browser's id for the user, when its cookie is good for the user's account now; else null. */
    deviceOf(cookie: string | undefined | null, user: Pick<UserRow, 'id' | 'passwordChangedAt'>, now: Date) {
      const account = accountOf(user.id);
      const entry = cookies.read(cookie, now).find((e) => e.a === account);
      if (!entry) return null;
      if (user.passwordChangedAt && entry.i < user.passwordChangedAt.getTime()) return null;
      return entry.d;
    },

    /** The cookie's value with this account added (or renewed), after a successful sign-in. */
    add(cookie: string | undefined | null, user: Pick<UserRow, 'id'>, now: Date): string {
      const account = accountOf(user.id);
      const entries = cookies.read(cookie, now);
      const known = entries.find((e) => e.a === account);
      const others = entries.filter((e) => e.a !== account);
      others.push({ a: account, d: known?.d ?? randomBytes(16).toString('base64url'), i: now.getTime() });
      return cookies.write(others);
    },
  };
}
export type DeviceTrust = ReturnType<typeof createDeviceTrust>;
