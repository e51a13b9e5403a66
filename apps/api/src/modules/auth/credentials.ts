import type { AuditAction } from '@moat/contracts/audit';
import { INVALID_CREDENTIALS_MESSAGE } from '@moat/contracts/auth-paths';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { createKeyedMutex } from '../../lib/keyed-mutex.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';
import type { Captcha, CaptchaStrength } from './captcha.ts';
import type { DeviceTrust } from './device-trust.ts';
import { type RequestMeta, userActor } from './sign-in.ts';
import type { SignInNotices } from './sign-in-notices.ts';
import {
  ACCOUNT_ATTACKED_AFTER,
  accountAddressKey,
  accountKey,
  addressKey,
  deviceKey,
  type FailureOf,
  reauthKey,
  THROTTLE,
  type Throttle,
} from './throttle.ts';

/** A real argon2id hash of a random password: unknown accounts cost the same time as known ones. */
let dummyHash: Promise<string> | null = null;
const dummy = () => {
  dummyHash ??= hashPassword(newToken());
  return dummyHash;
};

/**
 * A signed-in user's own password, entered again before a sensitive change (their password, their
 * MFA): under its own count (`reauthKey`, which only that user's sessions reach: failed sign-ins
 * from outside cannot block it); a wrong one is audited as `failedAction`.
 */
export async function confirmOwnPassword(
  deps: { throttle: Pick<Throttle, 'isBlocked' | 'recordFailure'>; audit: Pick<AuditRepo, 'record'> },
  user: UserRow,
  password: string,
  meta: RequestMeta,
  failedAction: AuditAction,
): Promise<void> {
  const key = reauthKey(user.id);
  const blocked = await deps.throttle.isBlocked([key]);
  const ok =
    (await verifyPassword(user.passwordHash ?? (await dummy()), password)) && Boolean(user.passwordHash);
  if (!blocked && ok) return;
  if (!blocked) await deps.throttle.recordFailure([{ key, ...THROTTLE.reauth }]);
  await deps.audit.record(userActor(user, meta), {
    tenantId: user.tenantId,
    action: failedAction,
    targetType: 'user',
    targetId: user.id,
    details: { reason: blocked ? 'throttled' : 'wrong_password' },
  });
  throw new AppError('invalid_credentials', 'The password is not correct');
}

/** What an account that sees many failed sign-ins asks a new browser for (captcha_required). */
export const STRONGER_CAPTCHA_MESSAGE =
  'This account has seen many failed sign-ins: this browser must pass a stronger security check. Try again.';

/** What vouches for a password attempt besides the password. */
export interface PasswordProof {
  /**
   * The captcha this attempt passed: `strong` (or a step of a sign-in that passed one already)
   * satisfies an account that sees many failures; `standard` does not.
   */
  captcha: CaptchaStrength;
}

/**
 * The proof of a password under the brute-force rules (throttle.ts), and the captcha in front
 * of it: shared by the sign-in, the expired-password change and the forgotten-password form.
 *
 * A wrong password counts for its client address, for the account from that address and for
 * the account over every address. The first two make that client wait; the account as a whole
 * never waits (so nobody can lock its owner out), but past ACCOUNT_ATTACKED_AFTER failures a
 * browser must pass the stronger captcha, and the owner is told once. A browser that shows its
 * device cookie for the account (device-trust.ts) skips both checks of the account, not the wait
 * of its address, and its failures count under its own id instead. An attempt refused by a wait
 * is not tried and counts nowhere.
 */
export function createCredentials(deps: {
  clock: Clock;
  users: Pick<UsersRepo, 'findByEmail'>;
  audit: Pick<AuditRepo, 'record'>;
  captcha: Pick<Captcha, 'check'>;
  throttle: Pick<Throttle, 'isBlocked' | 'failures' | 'recordFailure' | 'clear'>;
  deviceTrust: Pick<DeviceTrust, 'deviceOf'>;
  notices: Pick<SignInNotices, 'accountAttacked'>;
  /** Takes sign-in attempts of one account in turn on every node (Database.withLock); default: this process. */
  accountLock?: <T>(key: string, task: () => Promise<T>) => Promise<T>;
  /** Refused password proofs by reason; those refused by the lockout also as throttled (issue 14). */
  metrics: Pick<Metrics, 'loginFailures' | 'loginThrottled'>;
}) {
  const accountLock = deps.accountLock ?? createKeyedMutex();

  const audit = (email: string, meta: RequestMeta, user: UserRow | null, reason: string) =>
    deps.audit.record(user ? userActor(user, meta) : { type: 'anonymous', email, ip: meta.ip }, {
      tenantId: user?.tenantId ?? null,
      action: 'auth.login_failed',
      targetType: 'user',
      targetId: user?.id ?? null,
      details: { email, reason },
    });

  /** Refuse a bad password the same way whatever the reason, and count the failure under `keys`. */
  async function refuse(
    email: string,
    meta: RequestMeta,
    user: UserRow | null,
    reason: string,
    keys: FailureOf[],
  ): Promise<never> {
    // One label for an unknown account, a wrong password and an account that may not sign in: the
    // answer does not tell them apart, so neither may the metrics (the audit log keeps the reason).
    deps.metrics.loginFailures.inc({ reason: reason === 'throttled' ? 'throttled' : 'bad_credentials' });
    if (reason === 'throttled') deps.metrics.loginThrottled.inc({ kind: 'lockout' });
    const counted = await deps.throttle.recordFailure(keys);
    await audit(email, meta, user, reason);
    const account = counted.find((c) => c.key === accountKey(email));
    if (user?.status === 'active' && account?.failures === ACCOUNT_ATTACKED_AFTER + 1) {
      await deps.notices.accountAttacked(user, { failures: account.failures, ip: meta.ip });
    }
    throw new AppError('invalid_credentials', INVALID_CREDENTIALS_MESSAGE);
  }

  /** Check email and password under the brute-force rules. Answers the user only when the password is proven. */
  async function provePasswordNow(
    email: string,
    password: string,
    meta: RequestMeta,
    proof: PasswordProof,
  ): Promise<UserRow> {
    const user = await deps.users.findByEmail(email);
    const device = user ? deps.deviceTrust.deviceOf(meta.deviceCookie, user, deps.clock.now()) : null;
    const trusted = device !== null && !(await deps.throttle.isBlocked([deviceKey(device)]));
    const ip = meta.ip;
    const waiting = [
      ...(ip ? [addressKey(ip)] : []),
      ...(ip && !trusted ? [accountAddressKey(email, ip)] : []),
    ];
    const blocked = await deps.throttle.isBlocked(waiting);
    if (
      !blocked &&
      !trusted &&
      proof.captcha !== 'strong' &&
      (await deps.throttle.failures(accountKey(email), THROTTLE.account)) > ACCOUNT_ATTACKED_AFTER
    ) {
      // Not a refusal of the password (it is not tried): the browser solves the stronger captcha and sends it again.
      deps.metrics.loginFailures.inc({ reason: 'captcha_required' });
      deps.metrics.loginThrottled.inc({ kind: 'strong_captcha' });
      await audit(email, meta, user, 'stronger_captcha_required');
      throw new AppError('captcha_required', STRONGER_CAPTCHA_MESSAGE);
    }
    const hash = user?.passwordHash ?? (await dummy());
    const passwordOk = (await verifyPassword(hash, password)) && Boolean(user?.passwordHash);
    if (blocked) return refuse(email, meta, user, 'throttled', []);
    const keys: FailureOf[] = [
      ...(ip ? [{ key: addressKey(ip), ...THROTTLE.address }] : []),
      ...(trusted
        ? [{ key: deviceKey(device), ...THROTTLE.device }]
        : [
            ...(ip ? [{ key: accountAddressKey(email, ip), ...THROTTLE.accountAddress }] : []),
            { key: accountKey(email), ...THROTTLE.account },
          ]),
    ];
    if (!user) return refuse(email, meta, null, 'unknown_account', keys);
    if (!passwordOk) return refuse(email, meta, user, 'wrong_password', keys);
    if (user.status !== 'active') return refuse(email, meta, user, `account_${user.status}`, keys);
    if (ip) await deps.throttle.clear(accountAddressKey(email, ip));
    if (device) await deps.throttle.clear(deviceKey(device));
    return user;
  }

  return {
    /** Attempts for one account are taken in turn on every node, so a parallel burst is counted like a series. */
    provePassword(
      email: string,
      password: string,
      meta: RequestMeta,
      proof: PasswordProof,
    ): Promise<UserRow> {
      return accountLock(`sign-in:${email.toLowerCase()}`, () =>
        provePasswordNow(email, password, meta, proof),
      );
    },

    confirmOwnPassword: (user: UserRow, password: string, meta: RequestMeta, failedAction: AuditAction) =>
      confirmOwnPassword(deps, user, password, meta, failedAction),

    /** The captcha of a form: what it proved, or captcha_failed. */
    async assertVerifiedCaptcha(
      token: string | null | undefined,
      meta: RequestMeta,
    ): Promise<CaptchaStrength> {
      const strength = await deps.captcha.check(token, meta.ip);
      if (!strength) {
        throw new AppError(
          'captcha_failed',
          'The security check did not pass. Wait for it to finish and try again.',
        );
      }
      return strength;
    },
  };
}
export type Credentials = ReturnType<typeof createCredentials>;
