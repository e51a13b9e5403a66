import type { Clock } from '../../lib/clock.ts';
import type { ThrottleRepo } from './throttle.repo.ts';

/** How one kind of failure is counted: `free` cost nothing; each further one doubles the wait. */
export interface ThrottleRule {
  free: number;
  baseWaitMs: number;
  maxWaitMs: number;
  /** A count is forgotten after this long without a failure. */
  forgetAfterMs: number;
}

const PASSWORD_WAITS = { baseWaitMs: 1_000, maxWaitMs: 15 * 60_000, forgetAfterMs: 12 * 3_600_000 };

/**
 * Brute-force protection in the manner of Keycloak's: failures are counted per key in the
 * database every node shares (auth_throttle); past a rule's free allowance each further failure
 * doubles the wait during which that key is refused. An attempt refused by a wait is not
 * tried and counts nowhere, so hammering a waiting key extends nothing. Counts are forgotten
 * after quiet hours.
 *
 * Passwords: one account from one client address (`accountAddress`), one client address over
 * every account (`address`), one device cookie (`device`), and the password a signed-in user
 * enters again (`reauth`) wait 1 s, 2 s, 4 s … up to 15 minutes. Nobody can lock the owner out
 * from elsewhere: the account over every address (`account`) never waits; past 10 failures it
 * asks new browsers for the stronger captcha (ACCOUNT_ATTACKED_AFTER) and tells the owner once.
 * MFA codes (`mfa`): wrong codes of one user, over every sign-in (TOTP and emailed codes):
 * 10 free, then 1 minute, 2, 4 … up to 12 hours; forgotten after a quiet day.
 */
export const THROTTLE = {
  accountAddress: { free: 5, ...PASSWORD_WAITS },
  address: { free: 20, ...PASSWORD_WAITS },
  device: { free: 5, ...PASSWORD_WAITS },
  reauth: { free: 5, ...PASSWORD_WAITS },
  /** Never waits (its free allowance is endless): see ACCOUNT_ATTACKED_AFTER. */
  account: { free: Number.POSITIVE_INFINITY, ...PASSWORD_WAITS },
  mfa: { free: 10, baseWaitMs: 60_000, maxWaitMs: 12 * 3_600_000, forgetAfterMs: 24 * 3_600_000 },
} as const satisfies Record<string, ThrottleRule>;

/**
 * Past this many failures of an account (over every address, not yet forgotten) a browser
 * without its device cookie must pass the stronger captcha, and the owner is told (once).
 */
export const ACCOUNT_ATTACKED_AFTER = 10;

/** The rule of the callers that give only a free allowance (the public pages' emailed codes). */
const DEFAULT_RULE = PASSWORD_WAITS;

export function waitAfter(
  failures: number,
  rule: Pick<ThrottleRule, 'free' | 'baseWaitMs' | 'maxWaitMs'>,
): number {
  if (failures <= rule.free) return 0;
  return Math.min(rule.baseWaitMs * 2 ** (failures - rule.free - 1), rule.maxWaitMs);
}

export const accountKey = (email: string) => `account:${email.toLowerCase()}`;
export const accountAddressKey = (email: string, ip: string) =>
  `account-address:${email.toLowerCase()}|${ip}`;
export const addressKey = (ip: string) => `address:${ip}`;
export const deviceKey = (id: string) => `device:${id}`;
export const reauthKey = (userId: string) => `reauth:${userId}`;
export const mfaFailuresKey = (userId: string) => `mfa:${userId}`;

/** One failure to count: its key, and its rule (or just a free allowance, with the password waits). */
export type FailureOf = { key: string; free: number } & Partial<ThrottleRule>;

export interface Counted {
  key: string;
  failures: number;
  /** The wait this failure started, or null. */
  blockedUntil: Date | null;
}

export function createThrottle({
  repo,
  clock,
}: {
  repo: Pick<ThrottleRepo, 'stateOf' | 'countFailure' | 'block' | 'clear' | 'forgetQuiet'>;
  clock: Clock;
}) {
  /** The latest end of a wait among these keys that is not over, or null when none waits. */
  async function blockedUntil(keys: string[]): Promise<Date | null> {
    const now = clock.now();
    let until: Date | null = null;
    for (const row of await repo.stateOf(keys)) {
      if (row.blockedUntil && row.blockedUntil > now && (!until || row.blockedUntil > until)) {
        until = row.blockedUntil;
      }
    }
    return until;
  }

  return {
    blockedUntil,

    /** Whether any of the keys is waiting out a block now. */
    async isBlocked(keys: string[]): Promise<boolean> {
      return (await blockedUntil(keys)) !== null;
    },

    /** The failures counted for `key` and not yet forgotten (`forgetAfterMs` of its rule). */
    async failures(key: string, rule: Pick<ThrottleRule, 'forgetAfterMs'>): Promise<number> {
      const [row] = await repo.stateOf([key]);
      if (!row) return 0;
      return row.lastFailureAt.getTime() < clock.now().getTime() - rule.forgetAfterMs ? 0 : row.failures;
    },

    /** Count one failure of each key; what each key now counts, and the wait it started. */
    async recordFailure(keys: FailureOf[]): Promise<Counted[]> {
      const now = clock.now();
      const out: Counted[] = [];
      for (const failure of keys) {
        const rule = { ...DEFAULT_RULE, ...failure };
        const forgetBefore = new Date(now.getTime() - rule.forgetAfterMs);
        const failures = await repo.countFailure(failure.key, now, forgetBefore);
        const wait = waitAfter(failures, rule);
        const until = wait > 0 ? new Date(now.getTime() + wait) : null;
        if (until) await repo.block(failure.key, until);
        out.push({ key: failure.key, failures, blockedUntil: until });
      }
      return out;
    },

    clear: (key: string): Promise<void> => repo.clear(key),

    /** Forget the counts every rule has forgotten already (the housekeeping sweep). */
    forgetQuiet(): Promise<void> {
      const now = clock.now();
      const longest = Math.max(...Object.values(THROTTLE).map((rule) => rule.forgetAfterMs));
      return repo.forgetQuiet(new Date(now.getTime() - longest), now);
    },
  };
}
export type Throttle = ReturnType<typeof createThrottle>;
