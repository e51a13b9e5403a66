import { createHmac } from 'node:crypto';
import { MAIL_VERIFICATION_MAX_ATTEMPTS } from '@moat/contracts/constants';
import { and, count, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { emailCodes } from '../../db/schema.ts';
import type { Clock } from '../../lib/clock.ts';
import { newSixDigitCode } from '../../lib/codes.ts';
import { safeEqual } from '../../lib/tokens.ts';

/** Emailed codes (DESIGN §4): 6 digits, hashed, 10 minutes, 3 attempts, a resend only after the wait. */
export const CODE_VALIDITY_MS = 10 * 60_000;
export const RESEND_WAIT_S = 30;

export type CodeCheck = 'ok' | 'wrong' | 'expired' | 'max_attempts' | 'none';

/** The live (unconsumed) codes of one purpose, subject and email. */
const liveCodes = (purpose: string, subject: string, email: string) =>
  and(
    eq(emailCodes.purpose, purpose),
    eq(emailCodes.subject, subject),
    eq(emailCodes.email, email),
    isNull(emailCodes.consumedAt),
  );

/**
 * `pepper`: a server-held key, so the stored hash of a 6-digit code cannot be reversed by someone
 * who can read the database but not the key.
 */
export function createEmailCodes({ db, clock, pepper }: { db: Db; clock: Clock; pepper: Buffer }) {
  const current = async (purpose: string, subject: string, email: string) => {
    const [row] = await db
      .select()
      .from(emailCodes)
      .where(liveCodes(purpose, subject, email))
      .orderBy(desc(emailCodes.createdAt))
      .limit(1);
    return row ?? null;
  };
  const hash = (purpose: string, subject: string, code: string) =>
    createHmac('sha256', pepper).update(`${purpose}:${subject}:${code}`).digest('hex');

  return {
    /** Seconds before another code may be sent for this purpose, subject and email. */
    async waitTime(purpose: string, subject: string, email: string): Promise<number> {
      const row = await current(purpose, subject, email);
      if (!row) return 0;
      const elapsed = (clock.now().getTime() - row.createdAt.getTime()) / 1000;
      return Math.max(0, Math.ceil(RESEND_WAIT_S - elapsed));
    },

    /** How many codes were issued for this purpose and subject (any address). */
    async issuedCount(purpose: string, subject: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(emailCodes)
        .where(and(eq(emailCodes.purpose, purpose), eq(emailCodes.subject, subject)));
      return Number(row?.n ?? 0);
    },

    /** A new code (the previous ones stop working). The caller emails it; only its hash is kept. */
    async issue(purpose: string, subject: string, email: string): Promise<string> {
      const code = newSixDigitCode();
      const now = clock.now();
      await db.transaction(async (tx) => {
        await tx
          .update(emailCodes)
          .set({ consumedAt: now })
          .where(liveCodes(purpose, subject, email));
        await tx.insert(emailCodes).values({
          purpose,
          subject,
          email,
          codeHash: hash(purpose, subject, code),
          createdAt: now,
          expiresAt: new Date(now.getTime() + CODE_VALIDITY_MS),
        });
      });
      return code;
    },

    /**
     * Check a code. Each check first takes one attempt atomically (so parallel guesses cannot
     * exceed the limit); the right code is then consumed, once.
     */
    async check(
      purpose: string,
      subject: string,
      email: string,
      code: string,
    ): Promise<{ result: CodeCheck; attemptsLeft: number }> {
      const row = await current(purpose, subject, email);
      if (!row) return { result: 'none', attemptsLeft: 0 };
      if (row.expiresAt <= clock.now()) return { result: 'expired', attemptsLeft: 0 };
      const [taken] = await db
        .update(emailCodes)
        .set({ attempts: sql`${emailCodes.attempts} + 1` })
        .where(
          and(
            eq(emailCodes.id, row.id),
            isNull(emailCodes.consumedAt),
            lt(emailCodes.attempts, MAIL_VERIFICATION_MAX_ATTEMPTS),
          ),
        )
        .returning({ attempts: emailCodes.attempts });
      if (!taken) return { result: 'max_attempts', attemptsLeft: 0 };
      const attemptsLeft = MAIL_VERIFICATION_MAX_ATTEMPTS - taken.attempts;
      if (safeEqual(row.codeHash, hash(purpose, subject, code))) {
        const [consumed] = await db
          .update(emailCodes)
          .set({ consumedAt: clock.now() })
          .where(and(eq(emailCodes.id, row.id), isNull(emailCodes.consumedAt)))
          .returning({ id: emailCodes.id });
        if (consumed) return { result: 'ok', attemptsLeft };
      }
      return { result: attemptsLeft > 0 ? 'wrong' : 'max_attempts', attemptsLeft };
    },
  };
}
export type EmailCodes = ReturnType<typeof createEmailCodes>;
