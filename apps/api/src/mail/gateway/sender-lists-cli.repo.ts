import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { senderLists } from '../../db/schema.ts';

export type SenderList = 'allow' | 'block';

/**
 * The CLI's side of a tenant's exceptions (gateway:sender-list, gateway:exceptions-list); the
 * gateway reads them in policy.ts, the console writes them in modules/exceptions.
 */
export function createSenderListsCliRepo(db: DbOrTx) {
  return {
    /** Adds an address or domain (its kind set by the table's trigger); false if it was there. */
    async add(
      tenantId: string,
      list: SenderList,
      value: string,
      extra: { comment?: string; expiresAt?: Date | null; createdBy?: string } = {},
      tx?: DbOrTx,
    ): Promise<boolean> {
      const rows = await (tx ?? db)
        .insert(senderLists)
        .values({ tenantId, list, value, ...extra })
        .onConflictDoNothing()
        .returning({ id: senderLists.id });
      return rows.length > 0;
    },
    async remove(tenantId: string, list: SenderList, value: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .delete(senderLists)
        .where(
          and(eq(senderLists.tenantId, tenantId), eq(senderLists.list, list), eq(senderLists.value, value)),
        );
    },
    /** Every entry of the tenant, by list, kind and value. */
    async list(tenantId: string, tx?: DbOrTx) {
      return (tx ?? db)
        .select({
          list: senderLists.list,
          kind: senderLists.kind,
          scope: senderLists.scope,
          value: senderLists.value,
          comment: senderLists.comment,
          createdBy: senderLists.createdBy,
          createdAt: senderLists.createdAt,
          expiresAt: senderLists.expiresAt,
        })
        .from(senderLists)
        .where(eq(senderLists.tenantId, tenantId))
        .orderBy(asc(senderLists.list), asc(senderLists.kind), asc(senderLists.value));
    },
  };
}
export type SenderListsCliRepo = ReturnType<typeof createSenderListsCliRepo>;
