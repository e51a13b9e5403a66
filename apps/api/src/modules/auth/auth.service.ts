import {
  INVALID_CREDENTIALS_MESSAGE,
  type LoginStepResponse,
  PASSWORD_EXPIRED_MESSAGE,
  TENANT_APPROVAL_MESSAGE,
} from '@moat/contracts/auth';
import { domainOfEmail } from '@moat/contracts/validation';
import type { Config } from '../../config.ts';
import type { Db, DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { createKeyedMutex } from '../../lib/keyed-mutex.ts';
import { hashPassword, verifyPassword } from '../../lib/passwords.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import { matchTotpStep, newTotpSecret, totpEnrolment } from '../../lib/totp.ts';
import {
  mailVerificationCodeEmail,
  passwordChangedEmail,
  passwordResetEmail,
} from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import { createAuditRepo } from '../audit/audit.repo.ts';
import { createEmailCodes, RESEND_WAIT_S } from '../email-codes/email-codes.service.ts';
import { createFeaturesRepo } from '../features/features.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import { createTenantsRepo, type TenantRow } from '../tenants/tenants.repo.ts';
import { createUsersRepo, type UserRow } from '../users/users.repo.ts';
import type { Captcha } from './captcha.ts';
import { createLoginChallengesRepo, type LoginChallengeRow } from './login-challenges.repo.ts';
import { accountKey, addressKey, mfaFailuresKey, THROTTLE, type Throttle } from './throttle.ts';
import { createUserTokensRepo } from './user-tokens.repo.ts';

export const LOGIN_CHALLENGE_TTL_MS = 10 * 60_000;
export const MFA_CODE_MAX_ATTEMPTS = 5;
export const MAIL_CODES_PER_SIGN_IN = 5;
export const RESET_TOKEN_TTL_MS = 30 * 60_000;
export const LOGIN_LINK_TTL_MS = 10 * 60_000;
const RESET_MAIL_MIN_INTERVAL_MS = 60_000;
export const MFA_SECRET_PURPOSE = 'mfa-secret';
const MAIL_CODE_PURPOSE = 'mail_verification';

/** A real argon2id hash of a random password: unknown accounts cost the same time as known ones. */
let dummyHash: Promise<string> | null = null;
const dummy = () => {
  dummyHash ??= hashPassword(newToken());
  return dummyHash;
};

/**
 * The login proved the password (with the captcha) but it has expired: the answer carries a
 * short-lived challenge, the only way into the expired-password change.
 */
export class PasswordExpiredError extends AppError {
  constructor(readonly challengeToken: string) {
    super('password_expired', PASSWORD_EXPIRED_MESSAGE);
  }
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** What a sign-in step produced: the answer, and a session token or a challenge token to set as cookies. */
export interface StepOutcome {
  response: LoginStepResponse;
  sessionToken?: string;
  challengeToken?: string;
  /** The challenge is over (consumed or failed for good): clear its cookie. */
  clearChallenge?: boolean;
}

export function createAuthService(deps: {
  db: Db;
  clock: Clock;
  config: Pick<Config, 'publicUrl' | 'maintenanceDomains'>;
  serverKey: ServerKey;
  mailer: Mailer;
  captcha: Captcha;
  throttle: Throttle;
  sessions: SessionsService;
  log: { error(obj: unknown, msg: string): void };
  /** Takes sign-in attempts of one account in turn on every node (Database.withLock); default: this process. */
  accountLock?: <T>(key: string, task: () => Promise<T>) => Promise<T>;
}) {
  const { db, clock } = deps;
  const users = createUsersRepo(db);
  const tenants = createTenantsRepo(db);
  const features = createFeaturesRepo(db);
  const audit = createAuditRepo(db);
  const challenges = createLoginChallengesRepo(db);
  const userTokens = createUserTokensRepo(db);
  const codes = createEmailCodes({ db, clock, pepper: deps.serverKey.derive('email-codes') });
  const accountLock = deps.accountLock ?? createKeyedMutex();

  const userActor = (user: UserRow, meta: RequestMeta): Actor => ({
    type: 'user',
    userId: user.id,
    email: user.email,
    ip: meta.ip,
  });
  /** An audit entry about a user, by that user. */
  const auditUser = (
    user: UserRow,
    meta: RequestMeta,
    action: string,
    details?: Record<string, unknown>,
    tx?: DbOrTx,
  ) =>
    audit.record(
      userActor(user, meta),
      { tenantId: user.tenantId, action, targetType: 'user', targetId: user.id, details },
      tx,
    );

  async function tenantOf(user: UserRow): Promise<TenantRow> {
    const tenant = await tenants.findById(user.tenantId);
    if (!tenant) throw new AppError('internal_error', 'The user has no tenant');
    return tenant;
  }

  async function loginReasonRequired(user: UserRow): Promise<boolean> {
    const flags = await features.flagsOf(user.tenantId);
    return flags.blockMaintenanceLogin && deps.config.maintenanceDomains.includes(domainOfEmail(user.email));
  }

  const mfaRequired = (user: UserRow, tenant: TenantRow) => user.mfaRequired || tenant.mfaRequired;

  /** The answer of a step; only a finished sign-in (`done`) can owe a login reason. */
  function stepResponse(
    user: UserRow,
    next: LoginStepResponse['next'],
    reasonRequired = false,
  ): LoginStepResponse {
    return {
      success: true,
      next,
      email: user.email,
      mfaWasSet: user.mfaEnabled,
      automation_customer: user.automationCustomer,
      login_reason_required: reasonRequired,
    };
  }

  /** The end of every successful sign-in: a new session (a new token: the session is rotated). */
  async function finish(
    user: UserRow,
    meta: RequestMeta,
    method: string,
    mfaVerified: boolean,
  ): Promise<StepOutcome> {
    const reasonRequired = await loginReasonRequired(user);
    const { token } = await deps.sessions.open(user, {
      ...meta,
      mfaVerified,
      loginReasonRequired: reasonRequired,
    });
    await auditUser(user, meta, 'auth.login', { method });
    return {
      response: stepResponse(user, 'done', reasonRequired),
      sessionToken: token,
      clearChallenge: true,
    };
  }

  async function startChallenge(user: UserRow, stage: LoginChallengeRow['stage']) {
    const token = newToken();
    const challenge = await challenges.insert({
      tokenHash: hashToken(token),
      userId: user.id,
      stage,
      expiresAt: new Date(clock.now().getTime() + LOGIN_CHALLENGE_TTL_MS),
    });
    return { token, challenge };
  }

  /** The pending sign-in behind the challenge cookie, at the expected stage, with its user. */
  async function liveChallenge(token: string | undefined, stage: LoginChallengeRow['stage']) {
    const challenge = token ? await challenges.findLive(hashToken(token), clock.now()) : null;
    if (!challenge || challenge.stage !== stage) {
      throw new AppError(
        'login_expired',
        'Your sign-in has expired or was already completed. Sign in again.',
      );
    }
    const user = await users.findById(challenge.userId);
    if (user?.status !== 'active')
      throw new AppError('login_expired', 'Your sign-in has expired. Sign in again.');
    return { challenge, user };
  }

  async function sendMailCode(user: UserRow, challenge: LoginChallengeRow): Promise<void> {
    const code = await codes.issue(MAIL_CODE_PURPOSE, challenge.id, user.email);
    const brand = mailBrand(await tenantOf(user));
    await deps.mailer.send({
      tenantId: user.tenantId,
      kind: 'mail_verification',
      to: user.email,
      ...mailVerificationCodeEmail(brand, { code }),
    });
  }

  /** Refuse a bad password the same way whatever the reason, and count the failure. */
  async function refuse(
    email: string,
    meta: RequestMeta,
    user: UserRow | null,
    reason: string,
  ): Promise<never> {
    await deps.throttle.recordFailure([
      { key: accountKey(email), free: THROTTLE.account.free },
      ...(meta.ip ? [{ key: addressKey(meta.ip), free: THROTTLE.address.free }] : []),
    ]);
    await audit.record(user ? userActor(user, meta) : { type: 'anonymous', email, ip: meta.ip }, {
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
    const user = await users.findByEmail(email);
    const hash = user?.passwordHash ?? (await dummy());
    const passwordOk = (await verifyPassword(hash, password)) && Boolean(user?.passwordHash);
    if (blocked) return refuse(email, meta, user, 'throttled');
    if (!user) return refuse(email, meta, null, 'unknown_account');
    if (!passwordOk) return refuse(email, meta, user, 'wrong_password');
    if (user.status !== 'active') return refuse(email, meta, user, `account_${user.status}`);
    await deps.throttle.clear(accountKey(email));
    return user;
  }

  /** Attempts for one account are taken in turn on every node, so a parallel burst is counted like a series. */
  function provePassword(email: string, password: string, meta: RequestMeta): Promise<UserRow> {
    return accountLock(`sign-in:${email.toLowerCase()}`, () => provePasswordNow(email, password, meta));
  }

  async function assertVerifiedCaptcha(token: string | null | undefined, meta: RequestMeta): Promise<void> {
    if (!(await deps.captcha.verify(token, meta.ip))) {
      throw new AppError(
        'captcha_failed',
        'The security check did not pass. Wait for it to finish and try again.',
      );
    }
  }

  async function setPassword(
    user: UserRow,
    password: string,
    meta: RequestMeta,
    action: string,
    exceptSessionId?: number,
  ) {
    const passwordHash = await hashPassword(password);
    await db.transaction(async (tx) => {
      await users.update(
        user.id,
        {
          passwordHash,
          passwordChangedAt: clock.now(),
          status: 'active',
          inviteTokenHash: null,
          inviteExpiresAt: null,
        },
        tx,
      );
      await deps.sessions.revokeAllOf(user.id, exceptSessionId, tx);
      await userTokens.voidAllOf(user.id, clock.now(), tx);
      await auditUser(user, meta, action, undefined, tx);
    });
    const brand = mailBrand(await tenantOf(user));
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
    async login(
      input: { email: string; current_password: string; recaptcha_token?: string | null },
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      await assertVerifiedCaptcha(input.recaptcha_token, meta);
      const user = await provePassword(input.email, input.current_password, meta);
      const tenant = await tenantOf(user);
      if (user.hidden && !tenant.supportAccessEnabled) {
        await auditUser(user, meta, 'auth.login_blocked', { reason: 'support_access_off' });
        throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
      }
      if (tenant.passwordMaxAgeDays !== null) {
        const changed = user.passwordChangedAt?.getTime() ?? 0;
        if (changed + tenant.passwordMaxAgeDays * 86_400_000 <= clock.now().getTime()) {
          await auditUser(user, meta, 'auth.password_expired');
          const { token } = await startChallenge(user, 'password_expired');
          throw new PasswordExpiredError(token);
        }
      }
      if (user.automationCustomer) return finish(user, meta, 'password (automation customer)', false);
      if (user.mfaEnabled && user.mfaSecret) {
        const { token } = await startChallenge(user, 'mfa_code');
        return { response: stepResponse(user, 'mfa_code'), challengeToken: token };
      }
      if (mfaRequired(user, tenant)) {
        const { token, challenge } = await startChallenge(user, 'mail_verification');
        await sendMailCode(user, challenge);
        return { response: stepResponse(user, 'mail_verification'), challengeToken: token };
      }
      return finish(user, meta, 'password', false);
    },

    /** The one-time-code form: a wrong code answers success false; too many end the sign-in (429). */
    async verifyMfaCode(
      challengeToken: string | undefined,
      code: string,
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await liveChallenge(challengeToken, 'mfa_code');
      const attempts = await challenges.takeAttempt(challenge.id, MFA_CODE_MAX_ATTEMPTS);
      if (attempts === null) {
        await challenges.consume(challenge.id, clock.now());
        throw new AppError('rate_limited', 'Too many wrong codes. Sign in again.');
      }
      const secret = deps.serverKey.decrypt(MFA_SECRET_PURPOSE, user.mfaSecret!);
      const mfaKey = mfaFailuresKey(user.id);
      // Wrong codes count per user across sign-ins: a known password alone cannot try them all.
      const step = (await deps.throttle.isBlocked([mfaKey]))
        ? null
        : matchTotpStep(secret, code, clock.now());
      if (
        step !== null &&
        (await users.acceptTotpStep(user.id, step)) &&
        (await challenges.consume(challenge.id, clock.now()))
      ) {
        return finish(user, meta, 'password+totp', true);
      }
      await auditUser(user, meta, 'auth.mfa_failed', {
        reason: step === null ? 'wrong_code' : 'code_already_used',
        attempt: attempts,
      });
      if (attempts >= MFA_CODE_MAX_ATTEMPTS) {
        await challenges.consume(challenge.id, clock.now());
        throw new AppError('rate_limited', 'Too many wrong codes. Sign in again.');
      }
      return { response: { ...stepResponse(user, 'mfa_code'), success: false } };
    },

    /** Send (or resend, after the wait) the mail verification code of the pending sign-in. */
    async sendMailVerification(
      challengeToken: string | undefined,
    ): Promise<{ success: boolean; wait_time: number }> {
      const { challenge, user } = await liveChallenge(challengeToken, 'mail_verification');
      const wait = await codes.waitTime(MAIL_CODE_PURPOSE, challenge.id, user.email);
      if (wait > 0) return { success: false, wait_time: wait };
      // Each code gives 3 tries: a sign-in gets at most a few codes, then it starts again with the password.
      if ((await codes.issuedCount(MAIL_CODE_PURPOSE, challenge.id)) >= MAIL_CODES_PER_SIGN_IN) {
        throw new AppError('rate_limited', 'Too many codes for this sign-in. Sign in again.');
      }
      await sendMailCode(user, challenge);
      return { success: true, wait_time: RESEND_WAIT_S };
    },

    /** SPEC §7 mail_verification/verify: a wrong code is 403 and counts; 3 wrong codes end it. */
    async verifyMailCode(
      challengeToken: string | undefined,
      email: string,
      code: string,
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await liveChallenge(challengeToken, 'mail_verification');
      if (email !== user.email) throw new AppError('invalid_code', 'The code is not valid');
      const { result, attemptsLeft } = await codes.check(MAIL_CODE_PURPOSE, challenge.id, user.email, code);
      await auditUser(user, meta, result === 'ok' ? 'auth.mail_verified' : 'auth.mail_verification_failed', {
        result,
      });
      if (result === 'ok') {
        await challenges.setStage(challenge.id, 'mfa_setup');
        return { response: stepResponse(user, 'mfa_setup') };
      }
      if (result === 'max_attempts') {
        throw new AppError(
          'max_attempts_reached',
          'You have reached the maximum number of attempts. Sign in again to get a new code.',
        );
      }
      if (result === 'expired' || result === 'none')
        throw new AppError('code_expired', 'The code has expired. Send a new one.');
      throw new AppError('invalid_code', `The code is not valid. ${attemptsLeft} attempt(s) left.`);
    },

    /** PUT mfa/setup_public: the MFA enrolment of a sign-in whose password and email are proven. */
    async setupPublic(challengeToken: string | undefined, userEmail: string) {
      const { challenge, user } = await liveChallenge(challengeToken, 'mfa_setup');
      if (userEmail !== user.email) throw new AppError('forbidden', 'This sign-in belongs to another user');
      let secret = challenge.pendingSecret
        ? deps.serverKey.decrypt(MFA_SECRET_PURPOSE, challenge.pendingSecret)
        : null;
      if (!secret) {
        secret = newTotpSecret();
        await challenges.setPendingSecret(challenge.id, deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret));
      }
      return totpEnrolment(secret, user.email, mailBrand(await tenantOf(user)).name);
    },

    /** POST mfa/verify_public: the first code from the authenticator turns MFA on and completes the sign-in. */
    async verifyPublic(
      challengeToken: string | undefined,
      input: { userEmail: string; code: string; secret: string },
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await liveChallenge(challengeToken, 'mfa_setup');
      if (input.userEmail !== user.email || !challenge.pendingSecret) {
        throw new AppError('forbidden', 'Start the MFA setup of this sign-in first');
      }
      const secret = deps.serverKey.decrypt(MFA_SECRET_PURPOSE, challenge.pendingSecret);
      if (input.secret !== secret) throw new AppError('bad_request', 'The secret does not match this setup');
      const attempts = await challenges.takeAttempt(challenge.id, MFA_CODE_MAX_ATTEMPTS);
      if (attempts === null) {
        await challenges.consume(challenge.id, clock.now());
        throw new AppError('rate_limited', 'Too many wrong codes. Sign in again.');
      }
      const step = matchTotpStep(secret, input.code, clock.now());
      if (step === null || !(await challenges.consume(challenge.id, clock.now()))) {
        return { response: { ...stepResponse(user, 'mfa_setup'), success: false } };
      }
      await users.update(user.id, {
        mfaSecret: deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret),
        mfaEnabled: true,
        mfaLastStep: step,
        mfaPendingSecret: null,
      });
      await auditUser(user, meta, 'mfa.enable');
      return finish({ ...user, mfaEnabled: true }, meta, 'password+mail+totp_setup', true);
    },

    async logout(session: { id: number } | null, user: UserRow | null, meta: RequestMeta): Promise<void> {
      if (!session || !user) return;
      await deps.sessions.revoke(session.id);
      await auditUser(user, meta, 'auth.logout');
    },

    async loginReason(
      session: { id: number },
      user: UserRow,
      reason: string,
      meta: RequestMeta,
    ): Promise<void> {
      await auditUser(user, meta, 'Login-Reason', { loginReason: reason });
      await deps.sessions.clearLoginReason(session.id);
    },

    async logoutReason(reason: string, user: UserRow | null, meta: RequestMeta): Promise<void> {
      await audit.record(user ? userActor(user, meta) : { type: 'anonymous', ip: meta.ip }, {
        tenantId: user?.tenantId ?? null,
        action: 'auth.logout_reason',
        details: { reason },
      });
    },

    /**
     * Always answers the same. The work (and the email, only for an active account, at most one a
     * minute) happens after the answer, so its timing tells nothing either.
     */
    async forgotPassword(
      input: { email: string; recaptcha_token?: string | null },
      meta: RequestMeta,
    ): Promise<void> {
      await assertVerifiedCaptcha(input.recaptcha_token, meta);
      const work = async () => {
        const user = await users.findByEmail(input.email);
        await audit.record(
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
        const brand = mailBrand(await tenantOf(user));
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
      let action = 'auth.password_reset';
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

    /** The expired-password page: the current password proves the user; the new one must differ. */
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
      const { challenge, user: pending } = await liveChallenge(challengeToken, 'password_expired');
      if (input.email !== pending.email)
        throw new AppError('forbidden', 'This sign-in belongs to another user');
      const user = await provePassword(input.email, input.current_password, meta);
      if (input.new_password === input.current_password) {
        throw new AppError('validation_error', 'The new password must differ from the current one', [
          { field: 'body.new_password', message: 'password_unchanged' },
        ]);
      }
      if (!(await challenges.consume(challenge.id, clock.now()))) {
        throw new AppError(
          'login_expired',
          'Your sign-in has expired or was already completed. Sign in again.',
        );
      }
      await setPassword(user, input.new_password, meta, 'auth.password_changed');
    },

    async tokenLogin(accessToken: string, meta: RequestMeta): Promise<StepOutcome> {
      const userId = await userTokens.use(hashToken(accessToken), 'login_link', clock.now());
      const user = userId ? await users.findById(userId) : null;
      if (user?.status !== 'active') {
        await audit.record(
          { type: 'anonymous', ip: meta.ip },
          { tenantId: null, action: 'auth.token_login_failed' },
        );
        throw new AppError('invalid_token', 'This sign-in link is invalid, has expired or was already used.');
      }
      if (user.hidden && !(await tenantOf(user)).supportAccessEnabled) {
        await auditUser(user, meta, 'auth.login_blocked', {
          reason: 'support_access_off',
          method: 'login_link',
        });
        throw new AppError('tenant_approval_required', TENANT_APPROVAL_MESSAGE);
      }
      return finish(user, meta, 'login_link', false);
    },
  };
}
export type AuthService = ReturnType<typeof createAuthService>;
