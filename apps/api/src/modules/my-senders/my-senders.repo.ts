import type { MySenderKind, MySenderList } from '@moat/contracts/my-senders';
import { and, count, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { personalSenderLists, users } from '../../db/schema.ts';

export interface MySenderRow {
  id: string;
  list: MySenderList;
  kind: MySenderKind;
  value: string;
  createdAt: Date;
}

const columns = {
  id: personalSenderLists.id,
  list: personalSenderLists.list,
  kind: personalSenderLists.kind,
  value: personalSenderLists.value,
  createdAt: personalSenderLists.createdAt,
};

/** A user's own allow and block entries (issue 12): every statement is bounded to the one user. */
export function createMySendersRepo(db: DbOrTx) {
  return {
    /** The user's entries, newest first. */
    async listOf(userId: string, tx?: DbOrTx): Promise<MySenderRow[]> {
      return (tx ?? db)
        .select(columns)
        .from(personalSenderLists)
        .where(eq(personalSenderLists.userId, userId))
        .orderBy(desc(personalSenderLists.createdAt), personalSenderLists.value);
    },

    async countOf(userId: string, tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db)
        .select({ n: count() })
        .from(personalSenderLists)
        .where(eq(personalSenderLists.userId, userId));
      return row?.n ?? 0;
    },

    /** Holds the user's row until the transaction ends: one change to their list at a time. */
    async lockOwner(userId: string, tx: DbOrTx): Promise<void> {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    },

    async find(userId: string, value: string, tx?: DbOrTx): Promise<MySenderRow | null> {
      const [row] = await (tx ?? db)
        .select(columns)
        .from(personalSenderLists)
        .where(and(eq(personalSenderLists.userId, userId), eq(personalSenderLists.value, value)));
      return row ?? null;
    },

    /** The entry for `value`, added, or moved to `list` (dated anew) if the user has it already. */
    async put(
      entry: {
        tenantId: string;
        userId: string;
        list: MySenderList;
        kind: MySenderKind;
        value: string;
        createdAt: Date;
      },
      tx?: DbOrTx,
    ): Promise<MySenderRow> {
      const [row] = await (tx ?? db)
        .insert(personalSenderLists)
        .values(entry)
        .onConflictDoUpdate({
          target: [personalSenderLists.userId, personalSenderLists.value],
          set: { list: entry.list, createdAt: entry.createdAt },
        })
        .returning(columns);
      return row!;
    },

    /** Removes one of the user's entries; null when the user has no entry with that id. */
    async remove(userId: string, id: string, tx?: DbOrTx): Promise<MySenderRow | null> {
      const [row] = await (tx ?? db)
        .delete(personalSenderLists)
        .where(and(eq(personalSenderLists.userId, userId), eq(personalSenderLists.id, id)))
        .returning(columns);
      return row ?? null;
    },
  };
}
export type MySendersRepo = ReturnType<typeof createMySendersRepo>;
