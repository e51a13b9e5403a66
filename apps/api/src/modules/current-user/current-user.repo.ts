import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { users } from '../../db/schema.ts';

export function createCurrentUserRepo(db: DbOrTx) {
  return {
    /**
     * Merge `patch` into the user's stored preferences in one statement (jsonb `||`), so two
     * saves at once both land, keeping only the `known` keys (any other stored before goes);
     * answers the stored result, or null when the user is gone.
     */
    async mergePreferences(
      userId: string,
      patch: Record<string, unknown>,
      known: readonly string[],
      tx?: DbOrTx,
    ): Promise<Record<string, unknown> | null> {
      const merged = sql`${users.preferences} || ${JSON.stringify(patch)}::jsonb`;
      const keys = sql.join(
        known.map((key) => sql`${key}`),
        sql`, `,
      );
      const [row] = await (tx ?? db)
        .update(users)
        .set({
          preferences: sql`(select coalesce(jsonb_object_agg(e.key, e.value), '{}'::jsonb)
            from jsonb_each(${merged}) as e where e.key in (${keys}))`,
        })
        .where(eq(users.id, userId))
        .returning({ preferences: users.preferences });
      return row ? row.preferences : null;
    },
  };
}
export type CurrentUserRepo = ReturnType<typeof createCurrentUserRepo>;
