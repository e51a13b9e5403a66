import { and, count, desc, eq, isNull, lt, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { emailCodes } from '../../db/schema.ts';

/** The live (unconsumed) codes of one purpose, subject and email. */
const liveCodes = (purpose: string, subject: string, email: string) =>
  and(
    eq(emailCodes.purpose, purpose),
    eq(emailCodes.subject, subject),
    eq(emailCodes.email, email),
    isNull(emailCodes.consumedAt),
  );

export interface LiveCode {
  id: string;
  codeHash: string;
  createdAt: Date;
  expiresAt: Date;
}

export function createEmailCodesRepo(db: DbOrTx) {
  return {
    /** The newest live code of one purpose, subject and email. */
    async latestLive(purpose: string, subject: string, email: string, tx?: DbOrTx): Promise<LiveCode | null> {
      const [row] = await (tx ?? db)
        .select({
          id: emailCodes.id,
          codeHash: emailCodes.codeHash,
          createdAt: emailCodes.createdAt,
          expiresAt: emailCodes.expiresAt,
        })
        .from(emailCodes)
        .where(liveCodes(purpose, subject, email))
        .orderBy(desc(emailCodes.createdAt))
        .limit(1);
      return row ?? null;
    },

    /** How many codes were issued for this purpose and subject (any address). */
    async countIssued(purpose: string, subject: string, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({ n: count() })
        .from(emailCodes)
        .where(and(eq(emailCodes.purpose, purpose), eq(emailCodes.subject, subject)));
      return Number(row?.n ?? 0);
    },

    /** Store a new code; the live ones of the same purpose, subject and email stop working. */
    async replace(
      code: {
        purpose: string;
        subject: string;
        email: string;
        codeHash: string;
        createdAt: Date;
        expiresAt: Date;
      },
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db).transaction(async (t) => {
        await t
          .update(emailCodes)
          .set({ consumedAt: code.createdAt })
          .where(liveCodes(code.purpose, code.subject, code.email));
        await t.insert(emailCodes).values(code);
      });
    },

    /**
     * Take one attempt of a live code, atomically (parallel guesses cannot exceed `max`): the
     * attempts now counted, or null when the code is consumed or out of attempts.
     */
    async takeAttempt(id: string, max: number, tx?: DbOrTx): Promise<number | null> {
      const [taken] = await (tx ?? db)
        .update(emailCodes)
        .set({ attempts: sql`${emailCodes.attempts} + 1` })
        .where(and(eq(emailCodes.id, id), isNull(emailCodes.consumedAt), lt(emailCodes.attempts, max)))
        .returning({ attempts: emailCodes.attempts });
      return taken?.attempts ?? null;
    },

    /** Consume a code, once: whether this call did. */
    async consume(id: string, at: Date, tx?: DbOrTx): Promise<boolean> {
      const [consumed] = await (tx ?? db)
        .update(emailCodes)
        .set({ consumedAt: at })
        .where(and(eq(emailCodes.id, id), isNull(emailCodes.consumedAt)))
        .returning({ id: emailCodes.id });
      return consumed !== undefined;
    },
  };
}
export type EmailCodesRepo = ReturnType<typeof createEmailCodesRepo>;
