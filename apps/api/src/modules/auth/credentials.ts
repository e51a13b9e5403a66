import type { AuditAction } from '@moat/contracts/audit';
import { INVALID_CREDENTIALS_MESSAGE } from '@moat/contracts/auth-paths';
import { AppError } from '../../errors.ts';
import { createKeyedMutex } from '../../lib/keyed-mutex.ts';
import type { Metrics } from '../../lib/metrics.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';
import type { Captcha } from './captcha.ts';
import { type RequestMeta, userActor } from './sign-in.ts';
import { accountKey, addressKey, THROTTLE, type Throttle } from './throttle.ts';

/** A real argon2id hash of a random password: unknown accounts cost the same time as known ones. */
let dummyHash: Promise<string> | null = null;
const dummy = () => {
  dummyHash ??= hashPassword(newToken());
  return dummyHash;
};

/**
 * A signed-in user's own password, entered again before a sensitive change (their password, their
 * MFA): under the account's brute-force counter; a wrong one is audited as `failedAction`.
 */
export async function confirmOwnPassword(
  deps: { throttle: Pick<Throttle, 'isBlocked' | 'recordFailure'>; audit: Pick<AuditRepo, 'record'> },
  user: UserRow,
  password: string,
  meta: RequestMeta,
  failedAction: AuditAction,
): Promise<void> {
  const blocked = await deps.throttle.isBlocked([accountKey(user.email)]);
  const ok =
    (await verifyPassword(user.passwordHash ?? (await dummy()), password)) && Boolean(user.passwordHash);
  if (!blocked && ok) return;
  await deps.throttle.recordFailure([{ key: accountKey(user.email), free: THROTTLE.account.free }]);
  await deps.audit.record(userActor(user, meta), {
    tenantId: user.tenantId,
    action: failedAction,
    targetType: 'user',
    targetId: user.id,
    details: { reason: blocked ? 'throttled' : 'wrong_password' },
  });
  throw new AppError('invalid_credentials', 'The password is not correct');
}

/**
 * The proof of a password under the brute-force rules (SPEC §7), and the captcha in front of it:
 * shared by the sign-in, the expired-password change and the forgotten-password form.
 */
export function createCredentials(deps: {
  users: Pick<UsersRepo, 'findByEmail'>;
  audit: Pick<AuditRepo, 'record'>;
  captcha: Pick<Captcha, 'verify'>;
  throttle: Pick<Throttle, 'isBlocked' | 'recordFailure' | 'clear'>;
  /** Takes sign-in attempts of one account in turn on every node (Database.withLock); default: this process. */
  accountLock?: <T>(key: string, task: () => Promise<T>) => Promise<T>;
  /** Refused password proofs by reason; those refused by the lockout also as throttled (issue 14). */
  metrics: Pick<Metrics, 'loginFailures' | 'loginThrottled'>;
}) {
  const accountLock = deps.accountLock ?? createKeyedMutex();

  /** Refuse a bad password the same way whatever the reason, and count the failure. */
  async function refuse(
    email: string,
    meta: RequestMeta,
    user: UserRow | null,
    reason: string,
  ): Promise<never> {
    // One label for an unknown account, a wrong password and an account that may not sign in: the
    // answer does not tell them apart, so neither may the metrics (the audit log keeps the reason).
    deps.metrics.loginFailures.inc({ reason: reason === 'throttled' ? 'throttled' : 'bad_credentials' });
    if (reason === 'throttled') deps.metrics.loginThrottled.inc({ kind: 'lockout' });
    await deps.throttle.recordFailure([
      { key: accountKey(email), free: THROTTLE.account.free },
      ...(meta.ip ? [{ key: addressKey(meta.ip), free: THROTTLE.address.free }] : []),
    ]);
    await deps.audit.record(user ? userActor(user, meta) : { type: 'anonymous', email, ip: meta.ip }, {
      tenantId: user?.tenantId ?? null,
      action: 'auth.login_failed',
      targetType: 'user',
      targetId: user?.id ?? null,
      details: { email, reason },
    });
    throw new AppError('invalid_credentials', INVALID_CREDENTIALS_MESSAGE);
  }

  /** Check email and password under the brute-force rules. Answers the user only when the password is proven. */
  async function provePasswordNow(email: string, password: string, meta: RequestMeta): Promise<UserRow> {
    const keys = [accountKey(email), ...(meta.ip ? [addressKey(meta.ip)] : [])];
    const blocked = await deps.throttle.isBlocked(keys);
    const user = await deps.users.findByEmail(email);
    const hash = user?.passwordHash ?? (await dummy());
    const passwordOk = (await verifyPassword(hash, password)) && Boolean(user?.passwordHash);
    if (blocked) return refuse(email, meta, user, 'throttled');
    if (!user) return refuse(email, meta, null, 'unknown_account');
    if (!passwordOk) return refuse(email, meta, user, 'wrong_password');
    if (user.status !== 'active') return refuse(email, meta, user, `account_${user.status}`);
    await deps.throttle.clear(accountKey(email));
    return user;
  }

  return {
    /** Attempts for one account are taken in turn on every node, so a parallel burst is counted like a series. */
    provePassword(email: string, password: string, meta: RequestMeta): Promise<UserRow> {
      return accountLock(`sign-in:${email.toLowerCase()}`, () => provePasswordNow(email, password, meta));
    },

    confirmOwnPassword: (user: UserRow, password: string, meta: RequestMeta, failedAction: AuditAction) =>
      confirmOwnPassword(deps, user, password, meta, failedAction),

    async assertVerifiedCaptcha(token: string | null | undefined, meta: RequestMeta): Promise<void> {
      if (!(await deps.captcha.verify(token, meta.ip))) {
        throw new AppError(
          'captcha_failed',
          'The security check did not pass. Wait for it to finish and try again.',
        );
      }
    },
  };
}
export type Credentials = ReturnType<typeof createCredentials>;
