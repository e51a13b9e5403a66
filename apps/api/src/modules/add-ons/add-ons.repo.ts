import type { AddOnId } from '@moat/contracts/add-ons';
import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { addOnRequests, securityTools } from '../../db/schema.ts';

/** The Add-ons Store: the tenant's requests to the provider, and the state of its tools. */
export function createAddOnsRepo(db: DbOrTx) {
  return {
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** The newest request per add-on of the tenant. */
    async lastRequests(tenantId: string, tx?: DbOrTx): Promise<Map<AddOnId, { at: Date; by: string }>> {
      const rows = await (tx ?? db)
        .select({ addOn: addOnRequests.addOn, at: addOnRequests.createdAt, by: addOnRequests.email })
        .from(addOnRequests)
        .where(eq(addOnRequests.tenantId, tenantId))
        .orderBy(desc(addOnRequests.createdAt))
        .limit(500);
      const last = new Map<AddOnId, { at: Date; by: string }>();
      for (const r of rows) if (!last.has(r.addOn)) last.set(r.addOn, { at: r.at, by: r.by });
      return last;
    },

    async insertRequest(
      values: { tenantId: string; addOn: AddOnId; userId: string; email: string; message: string; at: Date },
      tx: DbOrTx,
    ): Promise<void> {
      const { at, ...rest } = values;
      await tx.insert(addOnRequests).values({ ...rest, createdAt: at });
    },

    /** The tenant's tools that are on. */
    async enabledTools(tenantId: string, tx?: DbOrTx): Promise<Set<string>> {
      const rows = await (tx ?? db)
        .select({ name: securityTools.name })
        .from(securityTools)
        .where(and(eq(securityTools.tenantId, tenantId), eq(securityTools.state, 'enabled')));
      return new Set(rows.map((r) => r.name));
    },
  };
}
export type AddOnsRepo = ReturnType<typeof createAddOnsRepo>;
