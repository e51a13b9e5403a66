import { and, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { senderLists } from '../../db/schema.ts';

export type SenderList = 'allow' | 'block';

/** The writes of a tenant's sender allow/block lists (CLI gateway:sender-list); the gateway reads them in policy.ts. */
export function createSenderListsCliRepo(db: DbOrTx) {
  return {
    async add(tenantId: string, list: SenderList, value: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(senderLists).values({ tenantId, list, value }).onConflictDoNothing();
    },
    async remove(tenantId: string, list: SenderList, value: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .delete(senderLists)
        .where(
          and(eq(senderLists.tenantId, tenantId), eq(senderLists.list, list), eq(senderLists.value, value)),
        );
    },
  };
}
export type SenderListsCliRepo = ReturnType<typeof createSenderListsCliRepo>;
