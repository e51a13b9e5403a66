import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { licenceContactRequests, licenceSeats, saasApps, securityTools, tenants } from '../../db/schema.ts';
import type { TenantRow } from '../tenants/tenants.repo.ts';

export function createDeploymentRepo(db: DbOrTx) {
  return {
    /** Run `work` in one transaction; the repos' methods take its `tx`. */
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    /** The tenant's SaaS apps, by name. */
    async apps(tenantId: string, tx?: DbOrTx) {
      return (tx ?? db)
        .select({ name: saasApps.name, state: saasApps.state })
        .from(saasApps)
        .where(eq(saasApps.tenantId, tenantId))
        .orderBy(saasApps.name);
    },

    /** The tenant's security tools, by name. */
    async tools(tenantId: string, tx?: DbOrTx) {
      return (tx ?? db)
        .select({ name: securityTools.name, state: securityTools.state })
        .from(securityTools)
        .where(eq(securityTools.tenantId, tenantId))
        .orderBy(securityTools.name);
    },

    async licenceSeats(tenantId: string, tx?: DbOrTx) {
      return (tx ?? db)
        .select({
          saas: licenceSeats.saas,
          security_tool: licenceSeats.securityTool,
          seats: licenceSeats.seats,
        })
        .from(licenceSeats)
        .where(eq(licenceSeats.tenantId, tenantId))
        .orderBy(licenceSeats.saas, licenceSeats.securityTool);
    },

    /** Store the Microsoft unified quarantine switch; answers the tenant as stored (null if gone). */
    async setUnifiedQuarantineDisabled(
      tenantId: string,
      disabled: boolean,
      now: Date,
      tx?: DbOrTx,
    ): Promise<TenantRow | null> {
      const [row] = await (tx ?? db)
        .update(tenants)
        .set({ unifiedQuarantineManuallyDisabled: disabled, updatedAt: now })
        .where(eq(tenants.id, tenantId))
        .returning();
      return row ?? null;
    },

    async addLicenceContactRequest(
      request: { tenantId: string; userId: string; email: string },
      tx?: DbOrTx,
    ): Promise<void> {
      await (tx ?? db).insert(licenceContactRequests).values(request);
    },
  };
}
export type DeploymentRepo = ReturnType<typeof createDeploymentRepo>;
