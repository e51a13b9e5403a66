import type { AuditAction } from '@moat/contracts/audit';
import type { LoginStepResponse } from '@moat/contracts/auth';
import { domainOfEmail } from '@moat/contracts/validation';
import type { Config } from '../../config.ts';
import type { DbOrTx } from '../../db/client.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../../lib/actor.ts';
import type { Clock } from '../../lib/clock.ts';
import { hashToken, newToken } from '../../lib/tokens.ts';
import type { AuditRepo } from '../audit/audit.repo.ts';
import type { FeaturesRepo } from '../features/features.repo.ts';
import type { SessionsService } from '../sessions/sessions.service.ts';
import type { TenantRow, TenantsRepo } from '../tenants/tenants.repo.ts';
import type { UserRow, UsersRepo } from '../users/users.repo.ts';
import type { DeviceTrust } from './device-trust.ts';
import type { LoginChallengeRow, LoginChallengesRepo } from './login-challenges.repo.ts';

export const LOGIN_CHALLENGE_TTL_MS = 10 * 60_000;

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  /** The browser's device cookie (device-trust.ts), if it sent one. */
  deviceCookie?: string | null;
}

/** What a sign-in step produced: the answer, and a session token or a challenge token to set as cookies. */
export interface StepOutcome {
  response: LoginStepResponse;
  sessionToken?: string;
  challengeToken?: string;
  /** The challenge is over (consumed or failed for good): clear its cookie. */
  clearChallenge?: boolean;
  /** The session the request came with has ended (the sign-in goes on with a challenge): clear its cookie. */
  clearSession?: boolean;
  /** A sign-in succeeded: the browser's device cookie, with this account in it. */
  deviceCookie?: string;
}

export const userActor = (user: UserRow, meta: RequestMeta): Actor => ({
  type: 'user',
  userId: user.id,
  email: user.email,
  ip: meta.ip,
});

/** The answer of a step; only a finished sign-in (`done`) can owe a login reason. */
export function stepResponse(
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

/**
 * What every way into the console shares (password, MFA, mail verification, expired password,
 * one-time link): the pending sign-in behind the challenge cookie, the audit entry about the
 * user, and the session that ends a successful sign-in.
 */
export function createSignIn(deps: {
  clock: Clock;
  config: Pick<Config, 'maintenanceDomains'>;
  users: Pick<UsersRepo, 'findById'>;
  tenants: Pick<TenantsRepo, 'findById'>;
  features: Pick<FeaturesRepo, 'flagsOf'>;
  challenges: Pick<LoginChallengesRepo, 'insert' | 'findLive'>;
  audit: Pick<AuditRepo, 'record'>;
  sessions: Pick<SessionsService, 'open'>;
  deviceTrust: Pick<DeviceTrust, 'add'>;
}) {
  const { clock, challenges } = deps;

  /** An audit entry about a user, by that user. */
  const auditUser = (
    user: UserRow,
    meta: RequestMeta,
    action: AuditAction,
    details?: Record<string, unknown>,
    tx?: DbOrTx,
  ) =>
    deps.audit.record(
      userActor(user, meta),
      { tenantId: user.tenantId, action, targetType: 'user', targetId: user.id, details },
      tx,
    );

  async function tenantOf(user: UserRow): Promise<TenantRow> {
    const tenant = await deps.tenants.findById(user.tenantId);
    if (!tenant) throw new AppError('internal_error', 'The user has no tenant');
    return tenant;
  }

  async function loginReasonRequired(user: UserRow): Promise<boolean> {
    const flags = await deps.features.flagsOf(user.tenantId);
    return flags.blockMaintenanceLogin && deps.config.maintenanceDomains.includes(domainOfEmail(user.email));
  }

  return {
    auditUser,
    tenantOf,

    /**
     * The end of every successful sign-in: a new session (a new token: the session is rotated),
     * and the device cookie that lets this browser past the account's checks next time.
     * A user whose password is a one-time one gets a session that can only replace it
     * (`password_change`, enforced by the session plugin); `offerMfa` answers `mfa_offer`.
     */
    async finish(
      user: UserRow,
      meta: RequestMeta,
      method: string,
      mfaVerified: boolean,
      offerMfa = false,
    ): Promise<StepOutcome> {
      const reasonRequired = await loginReasonRequired(user);
      const { token } = await deps.sessions.open(user, {
        ...meta,
        mfaVerified,
        loginReasonRequired: reasonRequired,
      });
      await auditUser(user, meta, 'auth.login', { method });
      const next = user.mustChangePassword ? 'password_change' : offerMfa ? 'mfa_offer' : 'done';
      return {
        response: stepResponse(user, next, reasonRequired),
        sessionToken: token,
        clearChallenge: true,
        deviceCookie: deps.deviceTrust.add(meta.deviceCookie, user, clock.now()),
      };
    },

    async startChallenge(user: UserRow, stage: LoginChallengeRow['stage']) {
      const token = newToken();
      const challenge = await challenges.insert({
        tokenHash: hashToken(token),
        userId: user.id,
        stage,
        expiresAt: new Date(clock.now().getTime() + LOGIN_CHALLENGE_TTL_MS),
      });
      return { token, challenge };
    },

    /** The pending sign-in behind the challenge cookie, at the expected stage, with its user. */
    async liveChallenge(token: string | undefined, stage: LoginChallengeRow['stage']) {
      const challenge = token ? await challenges.findLive(hashToken(token), clock.now()) : null;
      if (!challenge || challenge.stage !== stage) {
        throw new AppError(
          'login_expired',
          'Your sign-in has expired or was already completed. Sign in again.',
        );
      }
      const user = await deps.users.findById(challenge.userId);
      if (user?.status !== 'active')
        throw new AppError('login_expired', 'Your sign-in has expired. Sign in again.');
      return { challenge, user };
    },
  };
}
export type SignIn = ReturnType<typeof createSignIn>;
