import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { users } from '../../db/schema.ts';

export function createCurrentUserRepo(db: DbOrTx) {
  return {
    /**
     * Merge `patch` into the user's stored preferences in one statement (jsonb `||`), so two
     * saves at once both land; answers the stored result, or null when the user is gone.
     */
    async mergePreferences(
      userId: string,
      patch: Record<string, unknown>,
      tx?: DbOrTx,
    ): Promise<Record<string, unknown> | null> {
      const [row] = await (tx ?? db)
        .update(users)
        .set({ preferences: sql`${users.preferences} || ${JSON.stringify(patch)}::jsonb` })
        .where(eq(users.id, userId))
        .returning({ preferences: users.preferences });
      return row ? row.preferences : null;
    },
  };
}
export type CurrentUserRepo = ReturnType<typeof createCurrentUserRepo>;
