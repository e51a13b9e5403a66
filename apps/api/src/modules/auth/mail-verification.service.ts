import { AppError } from '../../errors.ts';
import { mailVerificationCodeEmail } from '../../mail/notifications.ts';
import type { Mailer } from '../../mail/outbound.ts';
import { mailBrand } from '../../mail/templates.ts';
import { type EmailCodes, RESEND_WAIT_S } from '../email-codes/email-codes.service.ts';
import type { UserRow } from '../users/users.repo.ts';
import type { CodeLock } from './code-lock.ts';
import type { LoginChallengeRow, LoginChallengesRepo } from './login-challenges.repo.ts';
import { type RequestMeta, type SignIn, type StepOutcome, stepResponse } from './sign-in.ts';

export const MAIL_CODES_PER_SIGN_IN = 5;
const MAIL_CODE_PURPOSE = 'mail_verification';

/**
 * A sign-in whose account must have MFA but has none yet first proves the mailbox (SPEC §7
 * mail_verification): a code by email, then the MFA setup.
 */
export function createMailVerificationService(deps: {
  signIn: Pick<SignIn, 'liveChallenge' | 'auditUser' | 'tenantOf'>;
  challenges: Pick<LoginChallengesRepo, 'setStage'>;
  codes: Pick<EmailCodes, 'issue' | 'waitTime' | 'issuedCount' | 'check'>;
  mailer: Pick<Mailer, 'send'>;
  codeLock: Pick<CodeLock, 'inTurn' | 'assertOpen' | 'wrongCode'>;
}) {
  const { signIn, codes, codeLock } = deps;

  async function sendMailCode(user: UserRow, challenge: LoginChallengeRow): Promise<void> {
    const code = await codes.issue(MAIL_CODE_PURPOSE, challenge.id, user.email);
    const brand = mailBrand(await signIn.tenantOf(user));
    await deps.mailer.send({
      tenantId: user.tenantId,
      kind: 'mail_verification',
      to: user.email,
      ...mailVerificationCodeEmail(brand, { code }),
    });
  }

  return {
    /** The first code of a sign-in that reached this stage (the password step sends it). */
    sendMailCode,

    /** Send (or resend, after the wait) the mail verification code of the pending sign-in. */
    async sendMailVerification(
      challengeToken: string | undefined,
    ): Promise<{ success: boolean; wait_time: number }> {
      const { challenge, user } = await signIn.liveChallenge(challengeToken, 'mail_verification');
      const wait = await codes.waitTime(MAIL_CODE_PURPOSE, challenge.id, user.email);
      if (wait > 0) return { success: false, wait_time: wait };
      // Each code gives 3 tries: a sign-in gets at most a few codes, then it starts again with the password.
      if ((await codes.issuedCount(MAIL_CODE_PURPOSE, challenge.id)) >= MAIL_CODES_PER_SIGN_IN) {
        throw new AppError('rate_limited', 'Too many codes for this sign-in. Sign in again.');
      }
      await sendMailCode(user, challenge);
      return { success: true, wait_time: RESEND_WAIT_S };
    },

    /**
     * SPEC §7 mail_verification/verify: a wrong code is 403 and counts; 3 wrong codes end it.
     * Wrong codes also count against the user over every sign-in, as wrong authenticator codes
     * do: too many pause this step (429 mfa_locked).
     */
    async verifyMailCode(
      challengeToken: string | undefined,
      email: string,
      code: string,
      meta: RequestMeta,
    ): Promise<StepOutcome> {
      const { challenge, user } = await signIn.liveChallenge(challengeToken, 'mail_verification');
      if (email !== user.email) throw new AppError('invalid_code', 'The code is not valid');
      return codeLock.inTurn(user, async () => {
        await codeLock.assertOpen(user).catch(async (error) => {
          await signIn.auditUser(user, meta, 'auth.mail_verification_failed', { result: 'locked' });
          throw error;
        });
        const { result, attemptsLeft, tried } = await codes.check(
          MAIL_CODE_PURPOSE,
          challenge.id,
          user.email,
          code,
        );
        await signIn.auditUser(
          user,
          meta,
          result === 'ok' ? 'auth.mail_verified' : 'auth.mail_verification_failed',
          { result },
        );
        if (result === 'ok') {
          await deps.challenges.setStage(challenge.id, 'mfa_setup');
          return { response: stepResponse(user, 'mfa_setup') };
        }
        if (tried) await codeLock.wrongCode(user);
        if (result === 'max_attempts') {
          throw new AppError(
            'max_attempts_reached',
            'You have reached the maximum number of attempts. Sign in again to get a new code.',
          );
        }
        if (result === 'expired' || result === 'none')
          throw new AppError('code_expired', 'The code has expired. Send a new one.');
        throw new AppError('invalid_code', `The code is not valid. ${attemptsLeft} attempt(s) left.`);
      });
    },
  };
}
export type MailVerificationService = ReturnType<typeof createMailVerificationService>;
