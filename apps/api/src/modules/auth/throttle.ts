import type { Clock } from '../../lib/clock.ts';
import type { ThrottleRepo } from './throttle.repo.ts';

/**
 * Brute-force protection in the manner of Keycloak's: failures are counted per account and per
 * client address; past a free allowance each further failure doubles the wait (1 s, 2 s, 4 s …
 * up to 15 minutes) during which every attempt is refused exactly like a wrong password. A
 * success clears the account's count; counts are forgotten after 12 quiet hours.
 */
export const THROTTLE = {
  account: { free: 5 },
  address: { free: 20 },
  /** Wrong TOTP codes of one user, across sign-ins. */
  mfa: { free: 10 },
  baseWaitMs: 1_000,
  maxWaitMs: 15 * 60_000,
  forgetAfterMs: 12 * 3_600_000,
} as const;

export function waitAfter(failures: number, free: number): number {
  if (failures <= free) return 0;
  return Math.min(THROTTLE.baseWaitMs * 2 ** (failures - free - 1), THROTTLE.maxWaitMs);
}

export const accountKey = (email: string) => `account:${email.toLowerCase()}`;
export const addressKey = (ip: string) => `address:${ip}`;
export const mfaFailuresKey = (userId: string) => `mfa:${userId}`;

export function createThrottle({
  repo,
  clock,
}: {
  repo: Pick<ThrottleRepo, 'blockedUntil' | 'countFailure' | 'block' | 'clear'>;
  clock: Clock;
}) {
  return {
    /** Whether any of the keys is waiting out a block now. */
    async isBlocked(keys: string[]): Promise<boolean> {
      const now = clock.now();
      return (await repo.blockedUntil(keys)).some((until) => until !== null && until > now);
    },

    async recordFailure(keys: { key: string; free: number }[]): Promise<void> {
      const now = clock.now();
      const forgetBefore = new Date(now.getTime() - THROTTLE.forgetAfterMs);
      for (const { key, free } of keys) {
        const wait = waitAfter(await repo.countFailure(key, now, forgetBefore), free);
        if (wait > 0) await repo.block(key, new Date(now.getTime() + wait));
      }
    },

    clear: (key: string): Promise<void> => repo.clear(key),
  };
}
export type Throttle = ReturnType<typeof createThrottle>;
