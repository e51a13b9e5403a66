import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { tenants, trialExtensionRequests } from '../../db/schema.ts';

export type TrialRequestRow = typeof trialExtensionRequests.$inferSelect;

export function createTrialRepo(db: DbOrTx) {
  return {
    /** Run `work` in one transaction; the repos' methods take its `tx`. */
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** Store a request; null when the tenant already has an open one (one per tenant). */
    async insertRequest(
      request: {
        tenantId: string;
        requestedBy: string;
        requesterEmail: string;
        requesterFirstName: string;
        requesterLastName: string;
      },
      tx?: DbOrTx,
    ): Promise<string | null> {
      const [row] = await (tx ?? db)
        .insert(trialExtensionRequests)
        .values(request)
        .onConflictDoNothing()
        .returning({ id: trialExtensionRequests.id });
      return row?.id ?? null;
    },

    /** The tenant's open request: its id and who asked. */
    async openRequestOf(
      tenantId: string,
      tx?: DbOrTx,
    ): Promise<{ id: string; requesterEmail: string } | null> {
      const [row] = await (tx ?? db)
        .select({ id: trialExtensionRequests.id, requesterEmail: trialExtensionRequests.requesterEmail })
        .from(trialExtensionRequests)
        .where(
          and(eq(trialExtensionRequests.tenantId, tenantId), eq(trialExtensionRequests.status, 'requested')),
        );
      return row ?? null;
    },

    async decide(
      id: string,
      decision: { status: 'approved' | 'declined'; decidedAt: Date; extendedDays: number | null },
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db).update(trialExtensionRequests).set(decision).where(eq(trialExtensionRequests.id, id));
    },

    /** The tenant's trial fields: waiting for the provider, and (on approval) the restarted trial. */
    async updateTenantTrial(
      tenantId: string,
      values: { waitingForApproval: boolean; trialStartDate?: Date; trialExpirationDays?: number },
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db).update(tenants).set(values).where(eq(tenants.id, tenantId));
    },

    /** Open requests, oldest first, with their tenant's name (the CLI's list). */
    async openRequests(tx?: DbOrTx): Promise<Array<{ request: TrialRequestRow; tenantName: string }>> {
      return (tx ?? db)
        .select({ request: trialExtensionRequests, tenantName: tenants.name })
        .from(trialExtensionRequests)
        .innerJoin(tenants, eq(tenants.id, trialExtensionRequests.tenantId))
        .where(eq(trialExtensionRequests.status, 'requested'))
        .orderBy(asc(trialExtensionRequests.createdAt));
    },
  };
}
export type TrialRepo = ReturnType<typeof createTrialRepo>;

/** Open trial-extension requests, oldest first (the CLI's list, which calls it with its database). */
export const openTrialRequests = (db: DbOrTx) => createTrialRepo(db).openRequests();
