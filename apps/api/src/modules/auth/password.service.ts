import type { AuditAction } from '@moat/contracts/audit';
import { PASSWORD_EXPIRED_MESSAGE } from '@moat/contracts/auth-paths';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { passwordChangedEmail, passwordResetEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';
import type { Credentials } from './credentials.ts';
import type { LoginChallengesRepo } from './login-challenges.repo.ts';
import { type RequestMeta, type SignIn, userActor } from './sign-in.ts';
import { mfaFailuresKey, type Throttle } from './throttle.ts';
import type { UserTokensRepo } from './user-tokens.repo.ts';

export const RESET_TOKEN_TTL_MS = 30 * 60_000;
const RESET_MAIL_MIN_INTERVAL_MS = 60_000;

/**
 * The login proved the password (with the captcha) but it has expired: the answer carries a
 * short-lived challenge, the only way into the expired-password change.
 */
export class PasswordExpiredError extends AppError {
  constructor(readonly challengeToken: string) {
    super('password_expired', PASSWORD_EXPIRED_MESSAGE);
  }
}

/** Choosing a password: the forgotten-password link, an invitation, and the expired password. */
export function createPasswordService(deps: {
  db: Pick<Db, 'transaction'>;
  clock: Clock;
  config: Pick<Config, 'publicUrl'>;
  credentials: Pick<Credentials, 'provePassword' | 'assertVerifiedCaptcha' | 'confirmOwnPassword'>;
  signIn: Pick<SignIn, 'liveChallenge' | 'startChallenge' | 'auditUser' | 'tenantOf'>;
  challenges: Pick<LoginChallengesRepo, 'consume'>;
  users: Pick<UsersRepo, 'findByEmail' | 'findById' | 'findByInviteHash' | 'update'>;
  userTokens: Pick<UserTokensRepo, 'insert' | 'use' | 'voidAllOf' | 'latestCreatedAt'>;
  audit: Pick<AuditRepo, 'record'>;
  sessions: Pick<SessionsService, 'revokeAllOf'>;
  mailer: Pick<Mailer, 'send'>;
  throttle: Pick<Throttle, 'clear'>;
  log: { error(obj: unknown, msg: string): void };
}) {
  const { clock, signIn, users, userTokens } = deps;

  async function setPassword(
    user: UserRow,
    password: string,
    meta: RequestMeta,
    action: AuditAction,
    exceptSessionId?: number,
  ) {
    const passwordHash = await hashPassword(password);
    await deps.db.transaction(async (tx) => {
      await users.update(
        user.id,
        {
          passwordHash,
          passwordChangedAt: clock.now(),
          status: 'active',
          inviteTokenHash: null,
          inviteExpiresAt: null,
          mustChangePassword: false,
        },
        tx,
      );
      await deps.sessions.revokeAllOf(user.id, exceptSessionId, tx);
      await userTokens.voidAllOf(user.id, clock.now(), tx);
      await signIn.auditUser(user, meta, action, undefined, tx);
    });
    // Whoever paused the user's sign-in codes knew the old password: with a new one, the pause ends.
    await deps.throttle.clear(mfaFailuresKey(user.id));
    const brand = mailBrand(await signIn.tenantOf(user));
    await deps.mailer.send({
      tenantId: user.tenantId,
      kind: 'password_changed',
      to: user.email,
      ...passwordChangedEmail(brand, {
        email: user.email,
        ip: meta.ip,
        forgotPasswordUrl: `${deps.config.publicUrl}/#/auth/forgot-password`,
      }),
    });
  }

  return {
    /** At sign-in, after the password is proven: a password older than the tenant allows must change first. */
    async assertNotExpired(user: UserRow, tenant: TenantRow, meta: RequestMeta): Promise<void> {
      if (tenant.passwordMaxAgeDays === null) return;
      const changed = user.passwordChangedAt?.getTime() ?? 0;
      if (changed + tenant.passwordMaxAgeDays * 86_400_000 <= clock.now().getTime()) {
        await signIn.auditUser(user, meta, 'auth.password_expired');
        const { token } = await signIn.startChallenge(user, 'password_expired');
        throw new PasswordExpiredError(token);
      }
    },

    /**
     * Always answers the same. The work (and the email, only for an active account, at most one a
     * minute) happens after the answer, so its timing tells nothing either.
     */
    async forgotPassword(
      input: { email: string; recaptcha_token?: string | null },
      meta: RequestMeta,
    ): Promise<void> {
      await deps.credentials.assertVerifiedCaptcha(input.recaptcha_token, meta);
      const work = async () => {
        const user = await users.findByEmail(input.email);
        await deps.audit.record(
          user ? userActor(user, meta) : { type: 'anonymous', email: input.email, ip: meta.ip },
          {
            tenantId: user?.tenantId ?? null,
            action: 'auth.password_reset_requested',
            details: { email: input.email, sent: Boolean(user && user.status !== 'disabled') },
          },
        );
        if (!user || user.status === 'disabled') return;
        const last = await userTokens.latestCreatedAt(user.id, 'password_reset');
        if (last && clock.now().getTime() - last.getTime() < RESET_MAIL_MIN_INTERVAL_MS) return;
        const token = newToken();
        await userTokens.insert({
          tokenHash: hashToken(token),
          kind: 'password_reset',
          userId: user.id,
          createdAt: clock.now(),
          expiresAt: new Date(clock.now().getTime() + RESET_TOKEN_TTL_MS),
        });
        const brand = mailBrand(await signIn.tenantOf(user));
        await deps.mailer.send({
          tenantId: user.tenantId,
          kind: 'password_reset',
          to: user.email,
          ...passwordResetEmail(brand, {
            email: user.email,
            resetUrl: `${deps.config.publicUrl}/#/auth/reset-password?token=${token}`,
          }),
        });
      };
      return new Promise((resolve) => {
        resolve();
        setImmediate(
          () => void work().catch((error) => deps.log.error({ err: error }, 'password reset request failed')),
        );
      });
    },

    /** A reset link (30 minutes, once) or an invite link sets the password; every session ends. */
    async resetPassword(input: { token: string; newPassword: string }, meta: RequestMeta): Promise<void> {
      const tokenHash = hashToken(input.token);
      const userId = await userTokens.use(tokenHash, 'password_reset', clock.now());
      let user = userId ? await users.findById(userId) : null;
      let action: AuditAction = 'auth.password_reset';
      if (!user) {
        const invited = await users.findByInviteHash(tokenHash);
        if (
          invited?.status === 'invited' &&
          invited.inviteExpiresAt &&
          invited.inviteExpiresAt > clock.now()
        ) {
          user = invited;
          action = 'auth.invite_accepted';
        }
      }
      if (!user || user.status === 'disabled') {
        throw new AppError(
          'invalid_token',
          'This password link is invalid, has expired or was already used. Ask for a new one.',
        );
      }
      await setPassword(user, input.newPassword, meta, action);
    },

    /**
     * The first sign-in with a one-time (generated) password: a new one that differs from it.
     * Every session of the user ends, the one that asked included (the sign-in goes on with a new
     * one, or with the MFA setup the admin requires); the user is told by email.
     */
    async replaceOneTimePassword(
      user: UserRow,
      input: { new_password: string },
      meta: RequestMeta,
    ): Promise<UserRow> {
      if (!user.mustChangePassword) {
        throw new AppError(
          'conflict',
          'Your password is not a one-time password: change it from your account instead',
        );
      }
      if (user.passwordHash && (await verifyPassword(user.passwordHash, input.new_password))) {
        throw new AppError('validation_error', 'The new password must differ from the one-time password', [
          { field: 'body.new_password', message: 'password_unchanged' },
        ]);
      }
      await setPassword(user, input.new_password, meta, 'auth.one_time_password_replaced');
      return { ...(await users.findById(user.id))!, mustChangePassword: false };
    },

    /**
     * The user menu's password change: the current password again (under the brute-force rules),
     * a new one that differs; every other session of the user ends, and the user is told by email.
     */
    async changeOwnPassword(
      user: UserRow,
      sessionId: number,
      input: { current_password: string; new_password: string },
      meta: RequestMeta,
    ): Promise<void> {
      await deps.credentials.confirmOwnPassword(
        user,
        input.current_password,
        meta,
        'auth.password_change_failed',
      );
      if (input.new_password === input.current_password) {
        throw new AppError('validation_error', 'The new password must differ from the current one', [
          { field: 'body.new_password', message: 'password_unchanged' },
        ]);
      }
      await setPassword(user, input.new_password, meta, 'auth.password_changed', sessionId);
    },

    /**
     * The expired-password page: only inside a login that proved the password with the captcha and
     * found it expired (its challenge), with the current password again; the new one must differ.
     * It opens no session: the user signs in again, MFA included.
     */
    async changeExpiredPassword(
      challengeToken: string | undefined,
      input: { email: string; current_password: string; new_password: string },
      meta: RequestMeta,
    ): Promise<void> {
      const { challenge, user: pending } = await signIn.liveChallenge(challengeToken, 'password_expired');
      if (input.email !== pending.email)
        throw new AppError('forbidden', 'This sign-in belongs to another user');
      // This sign-in passed the captcha its account asked for when it found the password expired.
      const user = await deps.credentials.provePassword(input.email, input.current_password, meta, {
        captcha: 'strong',
      });
      if (input.new_password === input.current_password) {
        throw new AppError('validation_error', 'The new password must differ from the current one', [
          { field: 'body.new_password', message: 'password_unchanged' },
        ]);
      }
      if (!(await deps.challenges.consume(challenge.id, clock.now()))) {
        throw new AppError(
          'login_expired',
          'Your sign-in has expired or was already completed. Sign in again.',
        );
      }
      await setPassword(user, input.new_password, meta, 'auth.password_changed');
    },
  };
}
export type PasswordService = ReturnType<typeof createPasswordService>;
