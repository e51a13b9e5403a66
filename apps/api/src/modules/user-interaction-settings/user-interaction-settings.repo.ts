import type { DigestSchedule } from '@moat/contracts/deployment';
import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { tenants, users } from '../../db/schema.ts';

/** What these settings are made of on the tenant's row. */
export interface StoredInteraction {
  digestSchedule: DigestSchedule;
  quarantineSettings: Record<string, unknown>;
  reportSettings: Record<string, unknown>;
}

/** Settings → User Interaction: the tenant's stored settings, and the admins who may approve. */
export function createUserInteractionSettingsRepo(db: DbOrTx) {
  return {
    transaction<T>(work: (tx: DbOrTx) => Promise<T>): Promise<T> {
      return db.transaction((tx) => work(tx));
    },

    async storedOf(tenantId: string, tx?: DbOrTx): Promise<StoredInteraction | null> {
      const [row] = await (tx ?? db)
        .select({
          digestSchedule: tenants.digestSchedule,
          quarantineSettings: tenants.quarantineSettings,
          reportSettings: tenants.reportSettings,
        })
        .from(tenants)
        .where(eq(tenants.id, tenantId));
      return row ?? null;
    },

    async saveQuarantine(
      tenantId: string,
      values: { digestSchedule: DigestSchedule; quarantineSettings: Record<string, unknown> },
      tx: DbOrTx,
    ): Promise<void> {
      await tx
        .update(tenants)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(tenants.id, tenantId));
    },

    async saveReports(tenantId: string, reportSettings: Record<string, unknown>, tx: DbOrTx): Promise<void> {
      await tx.update(tenants).set({ reportSettings, updatedAt: new Date() }).where(eq(tenants.id, tenantId));
    },

    /** The tenant's active admins, who may be named to decide restore requests. */
    async activeAdmins(
      tenantId: string,
      tx?: DbOrTx,
    ): Promise<Array<{ id: string; email: string; firstName: string; lastName: string }>> {
      return (tx ?? db)
        .select({ id: users.id, email: users.email, firstName: users.firstName, lastName: users.lastName })
        .from(users)
        .where(
          and(
            eq(users.tenantId, tenantId),
            eq(users.role, 'admin'),
            eq(users.status, 'active'),
            eq(users.hidden, false),
          ),
        )
        .orderBy(asc(users.email));
    },
  };
}
export type UserInteractionSettingsRepo = ReturnType<typeof createUserInteractionSettingsRepo>;
