import { createHmac } from 'node:crypto';
import { MAIL_VERIFICATION_MAX_ATTEMPTS } from '@moat/contracts/constants';
import type { Clock } from '../../lib/clock.ts';
import { newSixDigitCode } from '../../lib/codes.ts';
import { safeEqual } from '../../lib/tokens.ts';
import type { EmailCodesRepo } from './email-codes.repo.ts';

/** Emailed codes (DESIGN §4): 6 digits, hashed, 10 minutes, 3 attempts, a resend only after the wait. */
export const CODE_VALIDITY_MS = 10 * 60_000;
export const RESEND_WAIT_S = 30;

export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'max_attempts' | 'none';

export type EmailCodesStore = Pick<
  EmailCodesRepo,
  'latestLive' | 'countIssued' | 'replace' | 'takeAttempt' | 'consume'
>;

/**
 * `pepper`: a server-held key, so the stored hash of a 6-digit code cannot be reversed by someone
 * who can read the database but not the key. `repo` is built once in app.ts.
 */
export function createEmailCodes(deps: { clock: Clock; pepper: Buffer; repo: EmailCodesStore }) {
  const { clock, pepper, repo } = deps;
  const hash = (purpose: string, subject: string, code: string) =>
    createHmac('sha256', pepper).update(`${purpose}:${subject}:${code}`).digest('hex');

  return {
    /** Seconds before another code may be sent for this purpose, subject and email. */
    async waitTime(purpose: string, subject: string, email: string): Promise<number> {
      const row = await repo.latestLive(purpose, subject, email);
      if (!row) return 0;
      const elapsed = (clock.now().getTime() - row.createdAt.getTime()) / 1000;
      return Math.max(0, Math.ceil(RESEND_WAIT_S - elapsed));
    },

    /** How many codes were issued for this purpose and subject (any address). */
    issuedCount: (purpose: string, subject: string): Promise<number> => repo.countIssued(purpose, subject),

    /** A new code (the previous ones stop working). The caller emails it; only its hash is kept. */
    async issue(purpose: string, subject: string, email: string): Promise<string> {
      const code = newSixDigitCode();
      const now = clock.now();
      await repo.replace({
        purpose,
        subject,
        email,
        codeHash: hash(purpose, subject, code),
        createdAt: now,
        expiresAt: new Date(now.getTime() + CODE_VALIDITY_MS),
      });
      return code;
    },

    /**
     * Check a code. Each check first takes one attempt atomically (so parallel guesses cannot
     * exceed the limit); the right code is then consumed, once. `tried`: the code was compared
     * (an attempt was taken), so a caller may count a wrong one elsewhere too.
     */
    async check(
      purpose: string,
      subject: string,
      email: string,
      code: string,
    ): Promise<{ result: CodeCheck; attemptsLeft: number; tried: boolean }> {
      const row = await repo.latestLive(purpose, subject, email);
      if (!row) return { result: 'none', attemptsLeft: 0, tried: false };
      if (row.expiresAt <= clock.now()) return { result: 'expired', attemptsLeft: 0, tried: false };
      const taken = await repo.takeAttempt(row.id, MAIL_VERIFICATION_MAX_ATTEMPTS);
      if (taken === null) return { result: 'max_attempts', attemptsLeft: 0, tried: false };
      const attemptsLeft = MAIL_VERIFICATION_MAX_ATTEMPTS - taken;
      if (safeEqual(row.codeHash, hash(purpose, subject, code))) {
        if (await repo.consume(row.id, clock.now())) return { result: 'ok', attemptsLeft, tried: true };
      }
      return { result: attemptsLeft > 0 ? 'wrong' : 'max_attempts', attemptsLeft, tried: true };
    },
  };
}
export type EmailCodes = ReturnType<typeof createEmailCodes>;
