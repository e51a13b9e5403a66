import { and, asc, count, eq, ne } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client.ts';
import { saasApps, securityTools, tenantDomains, tenants, users } from '../../db/schema.ts';

export type TenantRow = typeof tenants.$inferSelect;
export type NewTenant = typeof tenants.$inferInsert;

export function createTenantsRepo(db: DbOrTx) {
  return {
    async insert(values: NewTenant, tx?: DbOrTx): Promise<TenantRow> {
      const [row] = await (tx ?? db).insert(tenants).values(values).returning();
      return row!;
    },
    async addDomain(tenantId: string, domain: string, tx?: DbOrTx): Promise<void> {
      await (tx ?? db).insert(tenantDomains).values({ tenantId, domain });
    },
    async findById(id: string, tx?: DbOrTx): Promise<TenantRow | null> {
      const [row] = await (tx ?? db).select().from(tenants).where(eq(tenants.id, id));
      return row ?? null;
    },
    async findByDomain(domain: string, tx?: DbOrTx): Promise<TenantRow | null> {
      const [row] = await (tx ?? db)
        .select({ tenant: tenants })
        .from(tenantDomains)
        .innerJoin(tenants, eq(tenants.id, tenantDomains.tenantId))
        .where(eq(tenantDomains.domain, domain.toLowerCase()));
      return row?.tenant ?? null;
    },
    /** The tenant that owns a domain, if any. */
    async domainOwner(domain: string, tx?: DbOrTx): Promise<string | null> {
      const [row] = await (tx ?? db)
        .select({ tenantId: tenantDomains.tenantId })
        .from(tenantDomains)
        .where(eq(tenantDomains.domain, domain));
      return row?.tenantId ?? null;
    },
    /** The owner of a domain and how the gateway checks its recipients at RCPT, in one query. */
    async recipientVerificationOf(
      domain: string,
      tx?: DbOrTx,
    ): Promise<{ tenantId: string; mode: string } | null> {
      const [row] = await (tx ?? db)
        .select({ tenantId: tenantDomains.tenantId, mode: tenantDomains.recipientVerification })
        .from(tenantDomains)
        .where(eq(tenantDomains.domain, domain.toLowerCase()));
      return row ?? null;
    },
    /** Set a domain's recipient verification mode; the owning tenant, or null for an unknown domain. */
    async setRecipientVerification(domain: string, mode: string, tx?: DbOrTx): Promise<string | null> {
      const [row] = await (tx ?? db)
        .update(tenantDomains)
        .set({ recipientVerification: mode })
        .where(eq(tenantDomains.domain, domain.toLowerCase()))
        .returning({ tenantId: tenantDomains.tenantId });
      return row?.tenantId ?? null;
    },
    /** Whether an address is a user of the tenant who is not disabled (emails are stored lowercase). */
    async isKnownRecipient(tenantId: string, address: string, tx?: DbOrTx): Promise<boolean> {
      const [row] = await (tx ?? db)
        .select({ id: users.id })
        .from(users)
        .where(
          and(
            eq(users.tenantId, tenantId),
            eq(users.email, address.toLowerCase()),
            ne(users.status, 'disabled'),
          ),
        )
        .limit(1);
      return row !== undefined;
    },
    async domainsOf(tenantId: string, tx?: DbOrTx): Promise<string[]> {
      const rows = await (tx ?? db)
        .select({ domain: tenantDomains.domain })
        .from(tenantDomains)
        .where(eq(tenantDomains.tenantId, tenantId))
        .orderBy(asc(tenantDomains.createdAt), asc(tenantDomains.domain));
      return rows.map((r) => r.domain);
    },
    /** The first tenant created: the deployment's own, answering public calls that carry no tenant. */
    async primary(tx?: DbOrTx): Promise<TenantRow | null> {
      const [row] = await (tx ?? db)
        .select()
        .from(tenants)
        .orderBy(asc(tenants.createdAt), asc(tenants.id))
        .limit(1);
      return row ?? null;
    },
    async list(tx?: DbOrTx): Promise<TenantRow[]> {
      return (tx ?? db).select().from(tenants).orderBy(asc(tenants.createdAt), asc(tenants.id));
    },
    async count(tx?: DbOrTx): Promise<number> {
      const [row] = await (tx ?? db).select({ n: count() }).from(tenants);
      return Number(row?.n ?? 0);
    },
    async update(id: string, values: Partial<NewTenant>, tx?: DbOrTx): Promise<void> {
      await (tx ?? db)
        .update(tenants)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(tenants.id, id));
    },
    async setLogo(tenantId: string, logo: Uint8Array | null, logoMime: string | null, tx?: DbOrTx) {
      await (tx ?? db)
        .update(tenants)
        .set({ logo, logoMime, updatedAt: new Date() })
        .where(eq(tenants.id, tenantId));
    },
    /** Set what the console shows for one of the tenant's SaaS apps or security tools. */
    async setAppState(
      tenantId: string,
      change: { kind: 'saas_app' | 'security_tool'; name: string; state: 'enabled' | 'disabled' },
      tx?: DbOrTx,
    ): Promise<void> {
      const table = change.kind === 'saas_app' ? saasApps : securityTools;
      await (tx ?? db)
        .insert(table)
        .values({ tenantId, name: change.name, state: change.state })
        .onConflictDoUpdate({
          target: [table.tenantId, table.name],
          set: { state: change.state, updatedAt: new Date() },
        });
    },
  };
}
export type TenantsRepo = ReturnType<typeof createTenantsRepo>;
