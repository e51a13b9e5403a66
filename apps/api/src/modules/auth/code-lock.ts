import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { createKeyedMutex } from '../../lib/keyed-mutex.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { utcMinute } from '../../mail/notifications.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { SignInNotices } from './sign-in-notices.ts';
import { mfaFailuresKey, THROTTLE, type Throttle } from './throttle.ts';

/** In words, how long until `until`: "1 minute", "25 minutes", "3 hours". */
function waitInWords(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  if (minutes < 120) return minutes === 1 ? '1 minute' : `${minutes} minutes`;
  return `${Math.ceil(minutes / 60)} hours`;
}

/** The 429 of a paused code step: until when (the route sends it as Retry-After too). */
export class MfaLockedError extends AppError {
  constructor(
    readonly retryAt: Date,
    now: Date,
  ) {
    super(
      'mfa_locked',
      `Too many wrong codes for this account. Try again after ${utcMinute(retryAt)} (in ${waitInWords(
        retryAt.getTime() - now.getTime(),
      )}).`,
    );
  }

  /** Seconds until the code step opens again, at least 1. */
  retryAfterSeconds(now: Date): number {
    return Math.max(1, Math.ceil((this.retryAt.getTime() - now.getTime()) / 1000));
  }
}

/**
 * Wrong sign-in codes count against the user, over every sign-in and every node (the throttle's
 * `mfa` rule, in the shared database): the authenticator's codes and the emailed ones alike. Past
 * the free ones the code step is paused with growing waits; while paused, codes are not even
 * tried (the right one is refused too) and count nowhere. Each pause is mailed to the user once.
 */
export function createCodeLock(deps: {
  clock: Clock;
  throttle: Pick<Throttle, 'blockedUntil' | 'recordFailure'>;
  notices: Pick<SignInNotices, 'mfaLocked'>;
  metrics: Pick<Metrics, 'loginThrottled'>;
  /** Takes the code checks of one user in turn on every node (Database.withLock); default: this process. */
  userLock?: <T>(key: string, task: () => Promise<T>) => Promise<T>;
}) {
  const userLock = deps.userLock ?? createKeyedMutex();

  return {
    /** Check one code of `user` in turn with the user's others: a parallel burst is counted like a series. */
    inTurn: <T>(user: UserRow, task: () => Promise<T>): Promise<T> =>
      userLock(`sign-in-code:${user.id}`, task),

    /** MfaLockedError while the user's code step is paused. */
    async assertOpen(user: UserRow): Promise<void> {
      const until = await deps.throttle.blockedUntil([mfaFailuresKey(user.id)]);
      if (!until) return;
      deps.metrics.loginThrottled.inc({ kind: 'mfa_lockout' });
      throw new MfaLockedError(until, deps.clock.now());
    },

    /** Count a wrong code of `user`; when it starts a pause, tell the user and throw MfaLockedError. */
    async wrongCode(user: UserRow): Promise<void> {
      const [counted] = await deps.throttle.recordFailure([
        { key: mfaFailuresKey(user.id), ...THROTTLE.mfa },
      ]);
      if (!counted?.blockedUntil) return;
      deps.metrics.loginThrottled.inc({ kind: 'mfa_lockout' });
      await deps.notices.mfaLocked(user, { failures: counted.failures, until: counted.blockedUntil });
      throw new MfaLockedError(counted.blockedUntil, deps.clock.now());
    },
  };
}
export type CodeLock = ReturnType<typeof createCodeLock>;
