import { AppError } from '../../errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Metrics } from '../../lib/metrics.ts';
import type { ServerKey } from '../../lib/server-key.ts';
import { matchTotpStep, newTotpSecret, totpEnrolment } from '../../lib/totp.ts';
import { mailBrand } from '../../mail/templates.ts';
import type { UsersRepo } from '../users/users.repo.ts';
import type { CodeLock } from './code-lock.ts';
import type { LoginChallengesRepo } from './login-challenges.repo.ts';
import { type RequestMeta, type SignIn, type StepOutcome, stepResponse } from './sign-in.ts';

export const MFA_CODE_MAX_ATTEMPTS = 5;
export const MFA_SECRET_PURPOSE = 'mfa-secret';

/**
 * The MFA step of a sign-in whose password is proven: the one-time code of an enrolled
 * authenticator, or the first enrolment (after the mailbox was proven) that turns MFA on.
 */
export function createMfaChallengeService(deps: {
  clock: Clock;
  serverKey: Pick<ServerKey, 'encrypt' | 'decrypt'>;
  signIn: Pick<SignIn, 'liveChallenge' | 'auditUser' | 'tenantOf' | 'finish'>;
  challenges: Pick<LoginChallengesRepo, 'takeAttempt' | 'consume' | 'setPendingSecret'>;
  users: Pick<UsersRepo, 'acceptTotpStep' | 'update'>;
  codeLock: Pick<CodeLock, 'inTurn' | 'assertOpen' | 'wrongCode'>;
  metrics: Pick<Metrics, 'loginFailures' | 'loginThrottled'>;
}) {
  const { clock, signIn, challenges, codeLock } = deps;

  /** Too many wrong codes end the sign-in: a new one starts with the password. */
  async function tooManyCodes(challengeId: string): Promise<never> {
    deps.metrics.loginThrottled.inc({ kind: 'mfa_lockout' });
    await challenges.consume(challengeId, clock.now());
    throw new AppError('rate_limited', 'Too many wrong codes. Sign in again.');
  }

  return {
    /**
     * The one-time-code form: a wrong code answers success false; too many in this sign-in end it
     * (429); too many of the user's over every sign-in pause the code step (429 mfa_locked, which
     * ends this sign-in too).
     */
    async verifyMfaCode(
      challengeToken: string | undefined,
      code: string,
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await signIn.liveChallenge(challengeToken, 'mfa_code');
      return codeLock.inTurn(user, async () => {
        await codeLock.assertOpen(user).catch(async (error) => {
          await signIn.auditUser(user, meta, 'auth.mfa_failed', { reason: 'locked' });
          await challenges.consume(challenge.id, clock.now());
          throw error;
        });
        const attempts = await challenges.takeAttempt(challenge.id, MFA_CODE_MAX_ATTEMPTS);
        if (attempts === null) return tooManyCodes(challenge.id);
        const secret = deps.serverKey.decrypt(MFA_SECRET_PURPOSE, user.mfaSecret!);
        const step = matchTotpStep(secret, code, clock.now());
        if (
          step !== null &&
          (await deps.users.acceptTotpStep(user.id, step)) &&
          (await challenges.consume(challenge.id, clock.now()))
        ) {
          return signIn.finish(user, meta, 'password+totp', true);
        }
        const reason = step === null ? 'wrong_code' : 'code_already_used';
        deps.metrics.loginFailures.inc({ reason: `mfa_${reason}` });
        await signIn.auditUser(user, meta, 'auth.mfa_failed', { reason, attempt: attempts });
        // Wrong codes count per user across sign-ins: a known password alone cannot try them all.
        await codeLock.wrongCode(user).catch(async (error) => {
          await challenges.consume(challenge.id, clock.now());
          throw error;
        });
        if (attempts >= MFA_CODE_MAX_ATTEMPTS) return tooManyCodes(challenge.id);
        return { response: { ...stepResponse(user, 'mfa_code'), success: false } };
      });
    },

    /** PUT mfa/setup_public: the MFA enrolment of a sign-in whose password and email are proven. */
    async setupPublic(challengeToken: string | undefined, userEmail: string) {
      const { challenge, user } = await signIn.liveChallenge(challengeToken, 'mfa_setup');
      if (userEmail !== user.email) throw new AppError('forbidden', 'This sign-in belongs to another user');
      let secret = challenge.pendingSecret
        ? deps.serverKey.decrypt(MFA_SECRET_PURPOSE, challenge.pendingSecret)
        : null;
      if (!secret) {
        secret = newTotpSecret();
        await challenges.setPendingSecret(challenge.id, deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret));
      }
      return totpEnrolment(secret, user.email, mailBrand(await signIn.tenantOf(user)).name);
    },

    /** POST mfa/verify_public: the first code from the authenticator turns MFA on and completes the sign-in. */
    async verifyPublic(
      challengeToken: string | undefined,
      input: { userEmail: string; code: string; secret: string },
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await signIn.liveChallenge(challengeToken, 'mfa_setup');
      if (input.userEmail !== user.email || !challenge.pendingSecret) {
        throw new AppError('forbidden', 'Start the MFA setup of this sign-in first');
      }
      const secret = deps.serverKey.decrypt(MFA_SECRET_PURPOSE, challenge.pendingSecret);
      if (input.secret !== secret) throw new AppError('bad_request', 'The secret does not match this setup');
      const attempts = await challenges.takeAttempt(challenge.id, MFA_CODE_MAX_ATTEMPTS);
      if (attempts === null) return tooManyCodes(challenge.id);
      const step = matchTotpStep(secret, input.code, clock.now());
      if (step === null || !(await challenges.consume(challenge.id, clock.now()))) {
        return { response: { ...stepResponse(user, 'mfa_setup'), success: false } };
      }
      await deps.users.update(user.id, {
        mfaSecret: deps.serverKey.encrypt(MFA_SECRET_PURPOSE, secret),
        mfaEnabled: true,
        mfaLastStep: step,
        mfaPendingSecret: null,
      });
      await signIn.auditUser(user, meta, 'mfa.enable');
      return signIn.finish({ ...user, mfaEnabled: true }, meta, 'password+mail+totp_setup', true);
    },
  };
}
export type MfaChallengeService = ReturnType<typeof createMfaChallengeService>;
